package main

import (
	"os/exec"
	"strings"
	"testing"
)

// heavyPackages are what hermes-tools-worker links so that this binary does
// not: each costs every spawn package initialisation and touched binary
// (see mcpserver/worker). A new import path into any of them from the
// server's side fails here.
var heavyPackages = []string{
	"github.com/chromedp/",
	"codeberg.org/readeck/go-readability",
	"github.com/JohannesKaufmann/",
	"golang.org/x/net/html",
	"github.com/ledongthuc/pdf",
	"github.com/openai/",
	"github.com/go-shiori/",
	"github.com/gogs/chardet",
	"golang.org/x/text/encoding",
	"github.com/hermes-go/hermes/mcpserver/web",
	"github.com/hermes-go/hermes/mcpserver/browser",
	"github.com/hermes-go/hermes/mcpserver/media",
	"modernc.org/",
	"github.com/hermes-go/hermes/internal/sqlitestore",
	"github.com/hermes-go/hermes/internal/hermesstate",
	"github.com/hermes-go/hermes/mcpserver/kanban",
	"github.com/hermes-go/hermes/mcpserver/sessions",
	"github.com/hermes-go/hermes/mcpserver/todo",
}

// allowed are the light declaration packages under the heavy toolsets, which
// hermes-tools-mcp serves; this test is what keeps them light.
func allowed(pkg string) bool { return strings.HasSuffix(pkg, "/spec") }

func TestServerDoesNotLinkTheWorkersLibraries(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		for _, heavy := range heavyPackages {
			if strings.HasPrefix(pkg, heavy) && !allowed(pkg) {
				t.Errorf("hermes-tools-mcp links %s; it belongs in hermes-tools-worker (go mod why -m or go list -deps shows the path)", pkg)
			}
		}
	}
}
