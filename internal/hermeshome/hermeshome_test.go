package hermeshome

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestResolve(t *testing.T) {
	tests := []struct {
		name     string
		override string
		env      map[string]string
		want     string
	}{
		{"override wins", "/opt/h", map[string]string{"HERMES_HOME": "/x", "HOME": "/home/u"}, "/opt/h"},
		{"HERMES_HOME", "", map[string]string{"HERMES_HOME": "/srv/hermes", "HOME": "/home/u"}, "/srv/hermes"},
		{"default under HOME", "", map[string]string{"HOME": "/home/u"}, "/home/u/.hermes"},
		{"tilde expanded", "~/h", map[string]string{"HOME": "/home/u"}, "/home/u/h"},
		{"variables expanded", "$BASE/h", map[string]string{"BASE": "/b", "HOME": "/home/u"}, "/b/h"},
		{"cleaned", "/a/b/../c/", nil, "/a/c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Resolve(tt.override, env(tt.env))
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Resolve = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLoadConfig(t *testing.T) {
	write := func(t *testing.T, body string) string {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, ConfigFile), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	t.Run("missing file is empty config", func(t *testing.T) {
		cfg, err := LoadConfig(t.TempDir())
		if err != nil || len(cfg.Toolsets) != 0 {
			t.Fatalf("cfg=%+v err=%v", cfg, err)
		}
	})
	t.Run("reads known keys and ignores the rest", func(t *testing.T) {
		cfg, err := LoadConfig(write(t, `# Hermes config
model: {default: gpt-x, provider: openai}
toolsets: [hermes-cli, kanban]
skills:
  external_dirs: [~/more-skills]
hermes_tools:
  toolsets: [skills]
  exclude_tools: [skill_view]
unknown_future_key: 1
`))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(cfg.Toolsets, ",") != "hermes-cli,kanban" ||
			strings.Join(cfg.Skills.ExternalDirs, ",") != "~/more-skills" ||
			strings.Join(cfg.HermesTools.Toolsets, ",") != "skills" ||
			strings.Join(cfg.HermesTools.ExcludeTools, ",") != "skill_view" {
			t.Errorf("cfg = %+v", cfg)
		}
	})
	// Hermes reads a single string as a one-item list and ignores what is
	// neither (a mapping, a null); a file it runs with must load here.
	t.Run("one path or a list", func(t *testing.T) {
		for body, want := range map[string]string{
			"skills:\n  external_dirs: ~/shared-skills\n":                          "~/shared-skills",
			"skills:\n  external_dirs: [a, \"b\", 3]\n":                            "a,b,3",
			"skills:\n  external_dirs:\n    - a\n    - {x: 1}\n    - ~\n    - b\n": "a,b",
			"skills:\n  external_dirs:\n":                                          "",
			"skills:\n  external_dirs: {a: 1}\n":                                   "",
			"dirs: &d [x, y]\nskills:\n  external_dirs: *d\n":                      "x,y",
			"toolsets: kanban\n":                                                   "",
		} {
			cfg, err := LoadConfig(write(t, body))
			if err != nil || strings.Join(cfg.Skills.ExternalDirs, ",") != want {
				t.Errorf("%q: external_dirs %q, %v; want %q", body, cfg.Skills.ExternalDirs, err, want)
			}
		}
		if cfg, err := LoadConfig(write(t, "toolsets: kanban\n")); err != nil || strings.Join(cfg.Toolsets, ",") != "kanban" {
			t.Errorf("toolsets as one string: %q, %v", cfg.Toolsets, err)
		}
	})
	t.Run("bad YAML names the file and line", func(t *testing.T) {
		dir := write(t, "hermes_tools:\n  toolsets: {not: a list}\n")
		_, err := LoadConfig(dir)
		if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, ConfigFile)) || !strings.Contains(err.Error(), "line 2") {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestDecodeReparsesOnlyChangedContent(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, ConfigFile)
	type section struct {
		Web struct {
			Backend string `yaml:"backend"`
			Limit   int    `yaml:"limit"`
		} `yaml:"web"`
	}
	tests := []struct {
		name, file string
		want       string // Backend, or the error's substring when wantErr
		wantErr    bool
	}{
		{"first read", "web:\n  backend: firecrawl\n", "firecrawl", false},
		{"same bytes again", "web:\n  backend: firecrawl\n", "firecrawl", false},
		{"edited, same size", "web:\n  backend: searxng!\n", "searxng!", false},
		{"empty file", "", "", false},
		{"comments only", "# nothing yet\n", "", false},
		{"type error names the line", "web:\n  backend: x\n  limit: lots\n", "line 3", true},
		{"syntax error", "web: [\n", "parse " + path, true},
		{"fixed again", "web:\n  backend: tavily\n", "tavily", false},
	}
	for _, tt := range tests {
		if err := os.WriteFile(path, []byte(tt.file), 0o644); err != nil {
			t.Fatal(err)
		}
		var got section
		err := Decode(home, &got)
		if tt.wantErr {
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s: err = %v, want one containing %q", tt.name, err, tt.want)
			}
			continue
		}
		if err != nil || got.Web.Backend != tt.want {
			t.Errorf("%s: got %q, %v; want %q", tt.name, got.Web.Backend, err, tt.want)
		}
	}
}

func TestDecodeConcurrently(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, ConfigFile), []byte("memory:\n  memory_char_limit: 2200\nweb:\n  backend: exa\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			var v struct {
				Web struct {
					Backend string `yaml:"backend"`
				} `yaml:"web"`
			}
			if err := Decode(home, &v); err != nil || v.Web.Backend != "exa" {
				t.Errorf("got %q, %v", v.Web.Backend, err)
			}
		})
	}
	wg.Wait()
}

func TestDecodeSeesEditsOfAnAgedFile(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, ConfigFile)
	write := func(body string, mtime time.Time) {
		t.Helper()
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	read := func() string {
		t.Helper()
		var v struct {
			Web struct {
				Backend string `yaml:"backend"`
			} `yaml:"web"`
		}
		if err := Decode(home, &v); err != nil {
			t.Fatal(err)
		}
		return v.Web.Backend
	}
	hourAgo := time.Now().Add(-time.Hour)
	write("web:\n  backend: exa\n", hourAgo)
	if got := read(); got != "exa" {
		t.Fatalf("got %q", got)
	}
	if got := read(); got != "exa" { // served by metadata
		t.Fatalf("got %q", got)
	}
	write("web:\n  backend: brave-free\n", hourAgo.Add(time.Minute)) // saved later, as an editor does
	if got := read(); got != "brave-free" {
		t.Errorf("after an edit: got %q", got)
	}
	write("web:\n  backend: searxng\n", time.Now()) // just now: the size differs too
	if got := read(); got != "searxng" {
		t.Errorf("after a fresh edit: got %q", got)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if got := read(); got != "" {
		t.Errorf("after removal: got %q, want the default", got)
	}
}
