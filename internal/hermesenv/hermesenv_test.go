package hermesenv

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func writeEnv(t *testing.T, home, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(home, FileName), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestLoad(t *testing.T) {
	tests := []struct {
		name    string
		file    string // "" writes no file
		environ []string
		want    map[string]string // "<unset>" for a variable that must be absent
		source  map[string]string // "file" for the .env path
		notes   int
	}{
		{name: "no file", environ: []string{"A=1"}, want: map[string]string{"A": "1"}, source: map[string]string{"A": "environment"}},
		{
			name: "file wins over the environment", file: "OPENROUTER_API_KEY=sk-file\nNEW=x\n",
			environ: []string{"OPENROUTER_API_KEY=sk-stale", "OTHER=o"},
			want:    map[string]string{"OPENROUTER_API_KEY": "sk-file", "NEW": "x", "OTHER": "o"},
			source:  map[string]string{"OPENROUTER_API_KEY": "file", "NEW": "file", "OTHER": "environment"},
		},
		{
			name: "references see the environment and earlier keys", file: "BASE=${HOME_DIR}/x\nFULL=${BASE}/y\n",
			environ: []string{"HOME_DIR=/h"}, want: map[string]string{"BASE": "/h/x", "FULL": "/h/x/y"},
		},
		{name: "disabled", file: "A=file\n", environ: []string{"A=env", "PYTHON_DOTENV_DISABLED=True"}, want: map[string]string{"A": "env"}},
		{name: "a key without a value sets nothing", file: "A\n", environ: []string{"A=env"}, want: map[string]string{"A": "env"}},
		{name: "skipped lines are noted", file: "=bad\nA=1\n", want: map[string]string{"A": "1"}, notes: 1},
		{
			name: "credentials lose non-ASCII, others keep it", file: "OPENAI_API_KEY=sk-\u201cabc\u201d\nGREETING=h\u00e9llo\n",
			environ: []string{"GH_TOKEN=t\u00a0ok"},
			want:    map[string]string{"OPENAI_API_KEY": "sk-abc", "GREETING": "h\u00e9llo", "GH_TOKEN": "tok"}, notes: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			if tt.file != "" {
				writeEnv(t, home, tt.file)
			}
			e := Load(home, tt.environ)
			for k, v := range tt.want {
				got, ok := e.LookupEnv(k)
				if !ok || got != v {
					t.Errorf("%s = %q (set %v), want %q", k, got, ok, v)
				}
				if !slices.Contains(e.Environ(), k+"="+v) {
					t.Errorf("Environ() lacks %s=%s: %q", k, v, e.Environ())
				}
			}
			for k, src := range tt.source {
				if src == "file" {
					src = filepath.Join(home, FileName)
				}
				if got := e.Source(k); got != src {
					t.Errorf("Source(%s) = %q, want %q", k, got, src)
				}
			}
			if len(e.Notes) != tt.notes {
				t.Errorf("notes %q, want %d", e.Notes, tt.notes)
			}
		})
	}
}

// A FIFO, a directory or a huge file at .env is refused with a note and
// never blocks: the FIFO has no writer, so reading it would wait forever.
func TestLoadRefusesSpecialFiles(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs")
	}
	cases := map[string]func(path string) error{
		"fifo":      func(p string) error { return syscall.Mkfifo(p, 0o600) },
		"directory": func(p string) error { return os.Mkdir(p, 0o700) },
		"too large": func(p string) error { return os.WriteFile(p, []byte(strings.Repeat("A=1\n", MaxFileSize/4+1)), 0o600) },
	}
	for name, mk := range cases {
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			if err := mk(filepath.Join(home, FileName)); err != nil {
				t.Fatal(err)
			}
			done := make(chan *Env, 1)
			go func() { done <- Load(home, []string{"A=env"}) }()
			select {
			case e := <-done:
				if e.Getenv("A") != "env" || len(e.Notes) != 1 || !strings.Contains(e.Notes[0], "not loaded") {
					t.Errorf("A=%q notes %q", e.Getenv("A"), e.Notes)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Load blocked on the .env")
			}
		})
	}
}

func TestSetOverridesForChildren(t *testing.T) {
	home := t.TempDir()
	writeEnv(t, home, "HERMES_HOME=/elsewhere\n")
	e := Load(home, nil)
	e.Set("HERMES_HOME", home)
	if e.Getenv("HERMES_HOME") != home || e.FromFile("HERMES_HOME") || e.Source("HERMES_HOME") != "environment" {
		t.Errorf("HERMES_HOME %q, from file %v", e.Getenv("HERMES_HOME"), e.FromFile("HERMES_HOME"))
	}
}

// TestLoadRefusesImpossibleVariables: a quoted key holding "=" would reach
// every child as another variable, a NUL (from a UTF-16 file) makes every
// child fail to start; both are skipped with a note, the rest is loaded.
func TestLoadRefusesImpossibleVariables(t *testing.T) {
	home := t.TempDir()
	writeEnv(t, home, "'NEWVAR=injected'=x\nGOOD=1\n")
	e := Load(home, nil)
	if _, ok := e.LookupEnv("NEWVAR=injected"); ok || e.Getenv("GOOD") != "1" || len(e.Notes) != 1 {
		t.Errorf("environ %q notes %q", e.Environ(), e.Notes)
	}
	for _, kv := range e.Environ() {
		if strings.HasPrefix(kv, "NEWVAR") {
			t.Errorf("a child would get %q", kv)
		}
	}
	utf16 := []byte{0xff, 0xfe}
	for _, r := range "A\x00B=1\nC=x\x00y\nD=2\n" {
		utf16 = append(utf16, byte(r), byte(r>>8))
	}
	if err := os.WriteFile(filepath.Join(home, FileName), utf16, 0o600); err != nil {
		t.Fatal(err)
	}
	e = Load(home, nil)
	if e.Getenv("D") != "2" || len(e.Notes) != 2 || slices.ContainsFunc(e.Environ(), func(kv string) bool { return strings.ContainsRune(kv, 0) }) {
		t.Errorf("environ %q notes %q", e.Environ(), e.Notes)
	}
}

// TestManagedKeysFollowTheHomesEnv: the original takes the ACP/Copilot
// command variables out of the environment when the home's .env exists
// and does not set them; without a .env they stay.
func TestManagedKeysFollowTheHomesEnv(t *testing.T) {
	home := t.TempDir()
	environ := []string{"COPILOT_CLI_PATH=/other/profile/copilot", "HERMES_ACP_AUTH_METHOD=x", "KEEP=1"}
	if e := Load(home, environ); e.Getenv("COPILOT_CLI_PATH") == "" {
		t.Errorf("without a .env the variable must stay")
	}
	writeEnv(t, home, "HERMES_ACP_AUTH_METHOD=mine\n")
	e := Load(home, environ)
	if _, ok := e.LookupEnv("COPILOT_CLI_PATH"); ok || e.Getenv("HERMES_ACP_AUTH_METHOD") != "mine" || e.Getenv("KEEP") != "1" {
		t.Errorf("environ %q", e.Environ())
	}
}
