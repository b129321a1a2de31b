package didyoumean_test

import (
	"fmt"

	"github.com/hermes-go/hermes/internal/didyoumean"
)

func ExampleHint() {
	clients := []string{"claude-desktop", "claude-code", "codex", "cursor"}
	fmt.Println(didyoumean.Hint("claude", clients))
	fmt.Println(didyoumean.Hint("--dryrun", []string{"--dry-run", "--remove"}))
	fmt.Printf("%q\n", didyoumean.Hint("emacs", clients))
	// Output:
	// did you mean "claude-desktop" or "claude-code"?
	// did you mean "--dry-run"?
	// ""
}
