package toolsets_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/toolsets"
	"github.com/hermes-go/hermes/toolsets/catalog"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// What the catalog says of the toolsets without building them is what the
// built toolsets declare, in the same order: hermes-migrate writes the
// variables and says which tools wait from the first, the server lists and
// runs the second.
func TestInventoryFollowsTheCatalog(t *testing.T) {
	box, err := toolsets.Builtin(toolsets.Env{Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { box.Close() })
	cat := catalog.All()
	if len(box.Toolsets) != len(cat) {
		t.Fatalf("built %d toolsets, the catalog lists %d", len(box.Toolsets), len(cat))
	}
	var vars []string
	for i, ts := range box.Toolsets {
		c := cat[i]
		if ts.Name != c.Name || ts.Description != c.Description || ts.Default != c.Default || !slices.Equal(ts.EnvVars, c.EnvVars) {
			t.Errorf("toolset %d built as %q %q default=%v %v, the catalog has %q %q default=%v %v",
				i, ts.Name, ts.Description, ts.Default, ts.EnvVars, c.Name, c.Description, c.Default, c.EnvVars)
		}
		var built, listed []string
		for _, tl := range ts.Tools {
			built = append(built, tl.Name)
		}
		for _, tl := range c.Tools {
			listed = append(listed, tl.Name)
		}
		if !slices.Equal(built, listed) {
			t.Errorf("toolset %s builds tools %v, the catalog lists %v", ts.Name, built, listed)
		}
		vars = append(vars, ts.EnvVars...)
	}
	slices.Sort(vars)
	vars = slices.Compact(vars)
	if got := catalog.EnvVarNames(); !slices.Equal(got, vars) {
		t.Errorf("catalog variables %v, built toolsets declare %v", got, vars)
	}
	for _, want := range []string{"TAVILY_API_KEY", "CHROME_PATH", "OPENAI_API_KEY", "HERMES_KANBAN_TASK", "HERMES_SESSION_ID"} {
		if !slices.Contains(vars, want) {
			t.Errorf("no toolset declares %s", want)
		}
	}
}

// world is an environment and the programs found in it.
type world struct {
	env   map[string]string
	found []string
}

func (w world) with(n catalog.Need, pick string) world {
	out := world{env: map[string]string{}, found: slices.Clone(w.found)}
	for k, v := range w.env {
		out.env[k] = v
	}
	if slices.Contains(n.Env, pick) {
		// A value that is also a program, so a variable naming a binary
		// (CHROME_PATH) names one that is found.
		out.env[pick] = "/hermes-test/" + pick
		out.found = append(out.found, "/hermes-test/"+pick)
	} else {
		out.found = append(out.found, pick)
	}
	return out
}

// firstWay is one way to meet n, "" when only config.yaml can.
func firstWay(n catalog.Need) string {
	if len(n.Env) > 0 {
		return n.Env[0]
	}
	if len(n.Programs) > 0 {
		return n.Programs[0]
	}
	return ""
}

// check builds every toolset in w over an empty Hermes home (config.yaml's
// defaults) and returns the named tool's check result.
func (w world) check(t *testing.T, name string) error {
	t.Helper()
	box, err := toolsets.Builtin(toolsets.Env{
		Home:      t.TempDir(),
		Getenv:    func(k string) string { return w.env[k] },
		LookupEnv: func(k string) (string, bool) { v, ok := w.env[k]; return v, ok },
		LookPath: func(file string) (string, error) {
			if slices.Contains(w.found, file) {
				return file, nil
			}
			return "", exec.ErrNotFound
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer box.Close()
	for _, ts := range box.Toolsets {
		if i := slices.IndexFunc(ts.Tools, func(tl tooldef.Tool) bool { return tl.Name == name }); i >= 0 {
			if ts.Tools[i].Check == nil {
				return nil
			}
			return ts.Tools[i].Check()
		}
	}
	t.Fatalf("no toolset builds %s", name)
	return nil
}

// Each tool's check agrees with what the catalog says it needs, on an
// empty home with nothing else set and no program found: with every need
// met the tool is listed; with one need's variables all unset and its
// programs all missing it is hidden; and any one of that need's variables
// or programs lifts that reason (the tool is listed, or hidden for another
// reason where only config.yaml can meet a need). A tool without needs is
// listed with nothing set.
func TestChecksAgreeWithCatalogNeeds(t *testing.T) {
	for _, ts := range catalog.All() {
		for _, tl := range ts.Tools {
			t.Run(tl.Name, func(t *testing.T) {
				met, complete := world{env: map[string]string{}}, true
				for _, n := range tl.Needs {
					if way := firstWay(n); way != "" {
						met = met.with(n, way)
					} else {
						complete = false
					}
				}
				if complete {
					if err := met.check(t, tl.Name); err != nil {
						t.Fatalf("hidden with every need met (%v): %v", met.env, err)
					}
				}
				for i, n := range tl.Needs {
					without := world{env: map[string]string{}}
					for j, other := range tl.Needs {
						if way := firstWay(other); j != i && way != "" {
							without = without.with(other, way)
						}
					}
					unmet := without.check(t, tl.Name)
					if unmet == nil {
						t.Errorf("listed with nothing set of need %d %+v", i, n)
						continue
					}
					for _, way := range append(slices.Clone(n.Env), n.Programs...) {
						err := without.with(n, way).check(t, tl.Name)
						switch {
						case complete && err != nil:
							t.Errorf("%s alone does not meet need %d: %v", way, i, err)
						case !complete && err != nil && err.Error() == unmet.Error():
							t.Errorf("%s alone leaves the tool hidden for the same reason: %v", way, err)
						}
					}
				}
			})
		}
	}
}

// Names are listed once, a need names something that can meet it, and a
// variable a need names is one a toolset declares (so hermes-migrate
// passes it on).
func TestCatalogNeedsAreWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, ts := range catalog.All() {
		if seen[ts.Name] {
			t.Errorf("toolset %s listed twice", ts.Name)
		}
		seen[ts.Name] = true
		for _, tl := range ts.Tools {
			if seen[tl.Name] && tl.Name != ts.Name {
				t.Errorf("tool %s listed twice", tl.Name)
			}
			seen[tl.Name] = true
			for _, n := range tl.Needs {
				if len(n.Env)+len(n.Programs)+len(n.Config) == 0 {
					t.Errorf("%s: a need with nothing that meets it", tl.Name)
				}
				for _, v := range n.Env {
					if !slices.Contains(catalog.EnvVarNames(), v) {
						t.Errorf("%s needs %s, which no toolset declares", tl.Name, v)
					}
					if strings.TrimSpace(v) != v || v == "" {
						t.Errorf("%s: variable name %q", tl.Name, v)
					}
				}
			}
		}
	}
}
