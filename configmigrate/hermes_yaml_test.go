package configmigrate

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// serverSummary is the part of a Server the YAML tests compare.
type serverSummary struct {
	Command  string
	Args     []string
	Env      map[string]Value
	Timeout  float64
	Startup  float64
	Disabled bool
}

func summarizeServers(servers []Server) map[string]serverSummary {
	out := map[string]serverSummary{}
	for _, s := range servers {
		sum := serverSummary{Command: s.Command, Args: s.Args, Timeout: s.ToolTimeoutSec, Startup: s.StartupTimeoutSec, Disabled: s.Disabled}
		for _, e := range s.Env {
			if sum.Env == nil {
				sum.Env = map[string]Value{}
			}
			sum.Env[e.Key] = e.Value
		}
		out[s.Name] = sum
	}
	return out
}

func readYAMLFixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "yaml", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestHermesServersReadsLikePyYAML(t *testing.T) {
	env := func(kv ...string) map[string]Value {
		m := map[string]Value{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = Value{Literal: kv[i+1]}
		}
		return m
	}
	tests := []struct {
		file  string
		order []string
		want  map[string]serverSummary
		notes map[string][]string
	}{
		{
			file:  "anchors.yaml",
			order: []string{"plain", "merged", "override", "listmerge", "envalias"},
			want: map[string]serverSummary{
				"plain":    {Command: "/usr/bin/srv", Env: env("LOG", "info")},
				"merged":   {Command: "/usr/bin/srv", Args: []string{"--merged"}, Env: env("LOG", "info")},
				"override": {Command: "/usr/bin/other", Env: env("LOG", "info")},
				// In a list of merged maps the earlier map wins.
				"listmerge": {Command: "/usr/bin/srv", Env: env("LOG", "info"), Timeout: 30, Startup: 5},
				"envalias":  {Command: "/usr/bin/e", Env: env("LOG", "info", "EXTRA", "1")},
			},
		},
		{
			file:  "merged-section.yaml",
			order: []string{"fs", "gh"},
			want: map[string]serverSummary{
				"fs": {Command: "/bin/fs", Disabled: true},
				"gh": {Command: "/bin/gh"},
			},
		},
		{
			file:  "booleans.yaml",
			order: []string{"plain-no", "plain-off", "quoted-no", "quoted-false", "zero", "plain-yes", "letter-n", "absent", "nullval"},
			want: map[string]serverSummary{
				"plain-no":     {Command: "a", Disabled: true},
				"plain-off":    {Command: "a", Disabled: true},
				"quoted-no":    {Command: "a", Disabled: true},
				"quoted-false": {Command: "a", Disabled: true},
				"zero":         {Command: "a", Disabled: true},
				"plain-yes":    {Command: "a"},
				// PyYAML reads n as the string "n", which is true.
				"letter-n": {Command: "a"},
				"absent":   {Command: "a"},
				"nullval":  {Command: "a"},
			},
		},
		{
			file:  "envtypes.yaml",
			order: []string{"typed"},
			want: map[string]serverSummary{
				"typed": {Command: "/bin/t", Args: []string{"--port", "8080", "True", "1.5"}, Env: env(
					"PORT", "8080", "OCTAL", "8", "HEX", "31", "UNDER", "1000", "SEXA", "90",
					"DEBUG", "True", "QUIET", "False", "RATIO", "1.5", "BIG", "1e+20",
					"NOTFLOAT", "1e3", "LETTER", "y", "QUOTED", "yes",
				)},
			},
			notes: map[string][]string{"typed": {
				"args[4] (a list cannot be an argument",
				"env EMPTY left out: its value is a null",
				"env LIST left out: its value is a list",
				"env MAP left out: its value is a mapping",
			}},
		},
		{
			file:  "refs.yaml",
			order: []string{"refs"},
			want: map[string]serverSummary{
				"refs": {Command: "/bin/r", Env: map[string]Value{
					"A": {Ref: "TOKEN"},
					"B": {Ref: "TOKEN"},
					"C": {Ref: "LEVEL", Default: "info", HasDefault: true},
					"D": {Ref: "EMPTY", HasDefault: true},
					"E": {Prefix: "Bearer ", Ref: "TOKEN", Default: "anon", HasDefault: true},
					"F": {Literal: "x-${HOST:-localhost}-y"},
				}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			servers, problems, err := HermesServers(readYAMLFixture(t, tt.file))
			if err != nil || len(problems) > 0 {
				t.Fatalf("HermesServers: %v %v", err, problems)
			}
			var order []string
			for _, s := range servers {
				order = append(order, s.Name)
			}
			if !slices.Equal(order, tt.order) {
				t.Errorf("servers %q, want %q", order, tt.order)
			}
			got := summarizeServers(servers)
			for name, want := range tt.want {
				g := got[name]
				if g.Command != want.Command || !slices.Equal(g.Args, want.Args) || g.Timeout != want.Timeout ||
					g.Startup != want.Startup || g.Disabled != want.Disabled || len(g.Env) != len(want.Env) {
					t.Errorf("%s = %+v, want %+v", name, g, want)
					continue
				}
				for k, v := range want.Env {
					if g.Env[k] != v {
						t.Errorf("%s env %s = %+v, want %+v", name, k, g.Env[k], v)
					}
				}
			}
			for _, s := range servers {
				for _, want := range tt.notes[s.Name] {
					if !slices.ContainsFunc(s.Notes, func(n string) bool { return strings.Contains(n, want) }) {
						t.Errorf("%s: no note contains %q; notes: %q", s.Name, want, s.Notes)
					}
				}
			}
		})
	}
}

func TestHermesServersRefuses(t *testing.T) {
	tests := []struct {
		file string
		want []string
	}{
		{"dup-server.yaml", []string{`key "github" appears twice`, "lines 2 and 6", "delete or rename one"}},
		{"dup-key.yaml", []string{`key "TOKEN" appears twice`, "lines 5 and 6", "mcp_servers.github.env"}},
		{"dup-section.yaml", []string{`key "mcp_servers" appears twice`, "lines 1 and 4"}},
		{"bad-merge.yaml", []string{"<< merge at line 3 needs a mapping"}},
		{"alias-bomb.yaml", []string{"expands its aliases too far"}},
		{"alias-cycle.yaml", []string{"expands its aliases too far"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			_, _, err := HermesServers(readYAMLFixture(t, tt.file))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestPyFloatRepr(t *testing.T) {
	for f, want := range map[float64]string{1: "1.0", 1.5: "1.5", 1e16: "1e+16", 1e15: "1000000000000000.0", 0.0001: "0.0001", 0.00001: "1e-05", -2.5e-7: "-2.5e-07"} {
		if got := pyFloatRepr(f); got != want {
			t.Errorf("pyFloatRepr(%v) = %q, want %q", f, got, want)
		}
	}
}
