package toolsets_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The tools do not depend on the protocol: mcpserver imports toolsets,
// never the other way round. sessionstate, which a transport fills and a
// tool reads (the per-session todo list, browser tabs), is the one
// package of mcpserver's the toolsets use.
func TestToolsetsDoNotImportTheServer(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	const server = "github.com/hermes-go/hermes/mcpserver"
	for _, pkg := range strings.Fields(string(out)) {
		if (pkg == server || strings.HasPrefix(pkg, server+"/")) && pkg != server+"/sessionstate" {
			t.Errorf("a package under toolsets links %s", pkg)
		}
	}
}
