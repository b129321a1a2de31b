package main

import (
	"os/exec"
	"strings"
	"testing"
)

// notLinked are packages hermes-migrate must not link: it knows the tools
// from toolsets/catalog (names, variables, needs), so the browser
// (chromedp), SQLite and the HTML readers behind them, and the toolsets
// themselves, stay in hermes-tools-mcp.
var notLinked = []string{
	"github.com/chromedp/",
	"modernc.org/sqlite",
	"codeberg.org/readeck/go-readability",
	"github.com/go-shiori/go-readability",
	"github.com/hermes-go/hermes/mcpserver",
	"github.com/hermes-go/hermes/toolsets/",
}

// linkedOnly is the one package under toolsets/ it may link.
const linkedOnly = "github.com/hermes-go/hermes/toolsets/catalog"

func TestMigrateDoesNotLinkTheTools(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	pkgs := strings.Fields(string(out))
	for _, pkg := range pkgs {
		if pkg == linkedOnly {
			continue
		}
		for _, bad := range notLinked {
			if strings.HasPrefix(pkg, bad) {
				t.Errorf("hermes-migrate links %s (go list -deps shows the path)", pkg)
			}
		}
	}
	if !strings.Contains(string(out), linkedOnly+"\n") {
		t.Errorf("hermes-migrate does not link %s: the test's list of allowed packages is stale", linkedOnly)
	}
}
