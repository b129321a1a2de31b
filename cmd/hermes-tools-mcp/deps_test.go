package main

import (
	"os/exec"
	"strings"
	"testing"
)

// notLinked are packages the server must not link: openai-go stays in the
// agent (the media tools make three plain JSON requests; the library costs
// every spawn megabytes and package initialisation), and the codex client
// and the agent belong to the other binaries. The README promises this.
var notLinked = []string{
	"github.com/openai/",
	"github.com/hermes-go/hermes/bridge",
	"github.com/hermes-go/hermes/agentcore",
	"github.com/sourcegraph/jsonrpc2",
}

func TestServerDoesNotLinkTheAgent(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		for _, bad := range notLinked {
			if strings.HasPrefix(pkg, bad) {
				t.Errorf("hermes-tools-mcp links %s (go list -deps shows the path)", pkg)
			}
		}
	}
}
