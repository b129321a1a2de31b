package catalog_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/toolsets/catalog"
)

func TestNeedMet(t *testing.T) {
	n := catalog.Need{Env: []string{"A", "B"}, Programs: []string{"prog", "/opt/prog"}, Config: []string{"x.y"}}
	tests := []struct {
		name  string
		env   map[string]string
		found []string
		want  bool
	}{
		{"nothing", nil, nil, false},
		{"empty value is unset", map[string]string{"A": ""}, nil, false},
		{"second variable", map[string]string{"B": "v"}, nil, true},
		{"unrelated variable", map[string]string{"C": "v"}, nil, false},
		{"second program", nil, []string{"/opt/prog"}, true},
		{"unrelated program", nil, []string{"other"}, false},
	}
	for _, tt := range tests {
		got := n.Met(func(k string) string { return tt.env[k] }, func(p string) (string, error) {
			if slices.Contains(tt.found, p) {
				return p, nil
			}
			return "", exec.ErrNotFound
		})
		if got != tt.want {
			t.Errorf("%s: Met = %v, want %v", tt.name, got, tt.want)
		}
	}
	if !n.Configured(func(k string) bool { return k == "x.y" }) || n.Configured(func(string) bool { return false }) {
		t.Error("Configured does not follow the need's settings")
	}
}

// Get finds every toolset All lists, returns copies the caller may
// change, and the zero Toolset for a name this build lacks.
func TestGet(t *testing.T) {
	for _, ts := range catalog.All() {
		if got := catalog.Get(ts.Name); got.Name != ts.Name || len(got.Tools) != len(ts.Tools) {
			t.Errorf("Get(%q) = %+v", ts.Name, got)
		}
	}
	web := catalog.Get(catalog.Web)
	web.EnvVars[0] = "CHANGED"
	if catalog.Get(catalog.Web).EnvVars[0] == "CHANGED" {
		t.Error("a caller's change reached the catalog")
	}
	if got := catalog.Get("nope"); got.Name != "" || got.Tools != nil {
		t.Errorf("Get(nope) = %+v", got)
	}
}

// The catalog is data for programs that must not link the tools: it
// imports the standard library only, and didyoumean (itself standard
// library only) for its error messages.
func TestCatalogImportsOnlyTheStandardLibrary(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	if got := strings.Fields(string(out)); !slices.Equal(got, []string{"github.com/hermes-go/hermes/internal/didyoumean", "github.com/hermes-go/hermes/toolsets/catalog"}) {
		t.Errorf("the catalog links %v besides the standard library", got)
	}
}
