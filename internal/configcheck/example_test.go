package configcheck_test

import (
	"fmt"

	"github.com/hermes-go/hermes/internal/configcheck"
)

func ExampleCheck() {
	res := configcheck.Check([]byte(`model:
  default: anthropic/claude-sonnet-4.6
  provider: openruoter
mcp_server:
  github:
    command: npx
`))
	if err := res.Err(); err != nil {
		fmt.Println(err) // names the line and the top-level section
		return
	}
	for _, w := range res.Warnings {
		fmt.Println(w)
	}
	if !res.Present("mcp_servers") {
		if w, ok := res.MissingButSimilar("mcp_servers"); ok {
			fmt.Printf("mcp_servers is absent; %s on line %d looks like it\n", w.Path, w.Line)
		}
	}
	// Output:
	// line 3: model.provider: "openruoter" is not a provider Hermes knows; did you mean openrouter?
	// line 4: mcp_server: unknown key, Hermes ignores it; did you mean mcp_servers?
	// mcp_servers is absent; mcp_server on line 4 looks like it
}
