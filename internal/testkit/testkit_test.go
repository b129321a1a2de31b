package testkit_test

import (
	"os/exec"
	"strings"
	"testing"
)

// No binary we ship links a test double.
func TestNoBinaryLinksTheTestKit(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "../../cmd/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.Contains(p, "/internal/testkit") {
			t.Errorf("a binary links %s: test doubles belong to tests only", p)
		}
	}
}
