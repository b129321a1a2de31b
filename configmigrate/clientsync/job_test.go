package clientsync

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/configmigrate"
	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/internal/toolsbin"
)

// jobDirs are a user home (where Cursor's config lives) and a Hermes home,
// both under t.TempDir(); the job sees them only through its Getenv.
type jobDirs struct{ home, hermes string }

func newJobDirs(t *testing.T) jobDirs {
	t.Helper()
	dir := t.TempDir()
	d := jobDirs{home: filepath.Join(dir, "home"), hermes: filepath.Join(dir, "hermes")}
	for _, p := range []string{filepath.Dir(d.cursor()), d.hermes} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

func (d jobDirs) cursor() string { return filepath.Join(d.home, ".cursor", "mcp.json") }
func (d jobDirs) state() string  { return filepath.Join(d.hermes, stateFileName) }
func (d jobDirs) yaml() string   { return filepath.Join(d.hermes, "config.yaml") }

func (d jobDirs) job() Job {
	return Job{
		Client:     Cursor,
		HermesHome: d.hermes,
		// toolsServer, as the job builds it.
		HermesToolsCommand: toolsServer.Command,
		Pin:                hermeshome.Pin{Home: toolsServer.Env[0].Value.Literal},
		EnvVars:            toolsServer.EnvVars,
		LookPath:           func(p string) (string, error) { return p, nil },
		Getenv:             func(k string) string { return map[string]string{"HOME": d.home}[k] },
	}
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readTestFile returns a missing file as "".
func readTestFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return string(b)
}

const (
	userCursor = "{\n  \"mcpServers\": {\n    \"mine\": {\"command\": \"my-server\"}\n  },\n  \"x-extra\": true\n}\n"
	ghYAML     = "mcp_servers:\n  gh:\n    command: npx\n"
)

// jobStep is one run of the job; yaml, when set, is written to config.yaml
// first.
type jobStep struct {
	yaml                        string
	userServers, remove, dryRun bool
	wantErr                     string
}

func TestJobRuns(t *testing.T) {
	tests := []struct {
		name          string
		cursor, state string // initial files; "" is missing
		steps         []jobStep
		// What the last step left.
		wantCursor    string // exact content; empty checks wantIn/wantOut only
		wantIn        []string
		wantOut       []string
		wantOwned     []string
		wantNoState   bool
		wantRemoved   bool
		wantSkipped   []string
		wantWritten   bool
		wantDiff      bool
		wantProblems  int
		wantNoteMatch string
	}{
		{
			name:   "first run registers hermes-tools and the user's servers and owns them",
			cursor: userCursor,
			steps:  []jobStep{{yaml: ghYAML, userServers: true}},
			wantIn: []string{`"hermes-tools"`, `"gh"`, `"npx"`, `"mine"`, `"x-extra"`}, wantOwned: []string{"gh"}, wantWritten: true,
		},
		{
			name:   "without UserServers only hermes-tools is registered, and it is never recorded",
			cursor: userCursor,
			steps:  []jobStep{{yaml: ghYAML}},
			wantIn: []string{`"hermes-tools"`}, wantOut: []string{`"gh"`}, wantNoState: true, wantWritten: true,
		},
		{
			name:   "ownership is kept across runs: an owned entry is updated, not taken for the user's",
			cursor: userCursor,
			steps: []jobStep{
				{yaml: ghYAML, userServers: true},
				{yaml: "mcp_servers:\n  gh:\n    command: gh-mcp\n", userServers: true},
			},
			wantIn: []string{`"gh-mcp"`}, wantOut: []string{`"npx"`}, wantOwned: []string{"gh"}, wantWritten: true,
		},
		{
			name:   "the user's own entry of the same name wins and is not recorded",
			cursor: "{\"mcpServers\": {\"gh\": {\"command\": \"user-gh\"}}}\n",
			steps:  []jobStep{{yaml: ghYAML, userServers: true}},
			wantIn: []string{`"user-gh"`, `"hermes-tools"`}, wantOut: []string{`"npx"`}, wantNoState: true,
			wantSkipped: []string{"gh"}, wantWritten: true, wantNoteMatch: "user definition wins",
		},
		{
			name:   "remove restores the user's file and forgets what was owned",
			cursor: userCursor,
			steps: []jobStep{
				{yaml: ghYAML, userServers: true},
				{remove: true},
			},
			wantCursor: userCursor, wantOwned: nil, wantRemoved: true, wantWritten: true,
		},
		{
			name:        "remove leaves a missing file missing",
			steps:       []jobStep{{remove: true}},
			wantNoState: true,
		},
		{
			name:       "dry run writes neither the config nor the state",
			cursor:     userCursor,
			steps:      []jobStep{{yaml: ghYAML, userServers: true, dryRun: true}},
			wantCursor: userCursor, wantNoState: true, wantDiff: true,
		},
		{
			name:   "dry run of remove keeps the entries and their ownership",
			cursor: userCursor,
			steps: []jobStep{
				{yaml: ghYAML, userServers: true},
				{remove: true, dryRun: true},
			},
			wantIn: []string{`"hermes-tools"`, `"gh"`}, wantOwned: []string{"gh"}, wantRemoved: true, wantDiff: true,
		},
		{
			name:   "a damaged state file stops the job before anything is written",
			cursor: userCursor,
			state:  "{broken",
			steps: []jobStep{{yaml: ghYAML, userServers: true,
				wantErr: stateFileName + " is damaged (invalid character 'b' looking for beginning of object key string); delete it and run again (entries hermes-migrate wrote before will then count as yours)"}},
			wantCursor: userCursor,
		},
		{
			name:   "a damaged state file stops remove too",
			cursor: userCursor,
			state:  "[]",
			steps:  []jobStep{{remove: true, wantErr: "is damaged"}},
			// The state file stays as the user left it.
			wantCursor: userCursor,
		},
		{
			name:       "config.yaml that is not a mapping fails before anything is written",
			cursor:     userCursor,
			steps:      []jobStep{{yaml: "mcp_servers: [a]\n", userServers: true, wantErr: "mcp_servers in config.yaml is not a mapping (line 1); cannot migrate"}},
			wantCursor: userCursor, wantNoState: true,
		},
		{
			name:   "a client config that does not parse is named and left alone",
			cursor: "{\"mcpServers\": {",
			steps:  []jobStep{{wantErr: "mcp.json: existing Cursor config is not valid JSON"}},
			// Unchanged, and no backup beside it.
			wantCursor: "{\"mcpServers\": {", wantNoState: true,
		},
		{
			name:   "servers that do not translate are problems, the rest is registered",
			steps:  []jobStep{{yaml: ghYAML + "  bad:\n    foo: 1\n", userServers: true}},
			wantIn: []string{`"gh"`}, wantOwned: []string{"gh"}, wantWritten: true, wantProblems: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newJobDirs(t)
			if tt.cursor != "" {
				writeTestFile(t, d.cursor(), tt.cursor)
			}
			if tt.state != "" {
				writeTestFile(t, d.state(), tt.state)
			}
			var res JobResult
			for i, st := range tt.steps {
				if st.yaml != "" {
					writeTestFile(t, d.yaml(), st.yaml)
				}
				job := d.job()
				job.UserServers, job.Remove, job.DryRun = st.userServers, st.remove, st.dryRun
				var err error
				res, err = job.Run(context.Background())
				switch {
				case st.wantErr == "" && err != nil:
					t.Fatalf("step %d: %v", i+1, err)
				case st.wantErr != "" && (err == nil || !strings.Contains(err.Error(), st.wantErr)):
					t.Fatalf("step %d: err = %v, want one containing %q", i+1, err, st.wantErr)
				}
			}

			got := readTestFile(t, d.cursor())
			if tt.wantCursor != "" && got != tt.wantCursor {
				t.Errorf("config:\n%s\nwant\n%s", got, tt.wantCursor)
			}
			if tt.cursor == "" && tt.wantCursor == "" && len(tt.wantIn) == 0 && got != "" {
				t.Errorf("config was created:\n%s", got)
			}
			for _, s := range tt.wantIn {
				if !strings.Contains(got, s) {
					t.Errorf("config lacks %s:\n%s", s, got)
				}
			}
			for _, s := range tt.wantOut {
				if strings.Contains(got, s) {
					t.Errorf("config has %s:\n%s", s, got)
				}
			}
			if len(tt.steps) == 1 && !tt.wantWritten && tt.cursor != "" {
				if _, err := os.Stat(d.cursor() + configmigrate.BackupSuffix); err == nil {
					t.Error("a backup was written for an unchanged file")
				}
			}

			state := readTestFile(t, d.state())
			switch {
			case tt.state != "" && state != tt.state && tt.steps[len(tt.steps)-1].wantErr != "":
				t.Errorf("a failed run rewrote the state file: %q", state)
			case tt.wantNoState && state != "":
				t.Errorf("state file written: %s", state)
			case !tt.wantNoState && tt.state == "":
				// No state file is no ownership: the last client
				// forgotten takes the file away.
				var o ownership
				if state == "" && len(tt.wantOwned) > 0 {
					t.Fatalf("no state file, want %v owned", tt.wantOwned)
				} else if err := json.Unmarshal([]byte(state), &o); state != "" && err != nil {
					t.Fatalf("state file %q: %v", state, err)
				}
				if !slices.Equal(o[d.cursor()].Servers, tt.wantOwned) || len(o) > 1 {
					t.Errorf("owned = %v, want %v under %s", o, tt.wantOwned, d.cursor())
				}
			}

			if res.Path != d.cursor() {
				t.Errorf("Path = %q, want %q", res.Path, d.cursor())
			}
			if res.Removed != tt.wantRemoved || res.Written != tt.wantWritten || (res.Diff != "") != tt.wantDiff {
				t.Errorf("removed %v written %v diff %q; want %v, %v, diff %v", res.Removed, res.Written, res.Diff, tt.wantRemoved, tt.wantWritten, tt.wantDiff)
			}
			if !slices.Equal(res.Skipped, tt.wantSkipped) || len(res.Problems) != tt.wantProblems {
				t.Errorf("skipped %q problems %q; want %q and %d problems", res.Skipped, res.Problems, tt.wantSkipped, tt.wantProblems)
			}
			if tt.wantNoteMatch != "" && !strings.Contains(strings.Join(res.Notes, "\n"), tt.wantNoteMatch) {
				t.Errorf("notes %q lack %q", res.Notes, tt.wantNoteMatch)
			}
		})
	}
}

// TestJobStateFileFormat pins the state file other runs (and older
// versions) read: indented JSON, config path to names, private to the user.
func TestJobStateFileFormat(t *testing.T) {
	d := newJobDirs(t)
	writeTestFile(t, d.yaml(), ghYAML+"  web:\n    url: https://x.example/mcp\n")
	job := d.job()
	job.UserServers = true
	if _, err := job.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("{\n  %q: [\n    \"gh\",\n    \"web\"\n  ]\n}\n", d.cursor())
	if got := readTestFile(t, d.state()); got != want {
		t.Errorf("state file:\n%s\nwant\n%s", got, want)
	}
	fi, err := os.Stat(d.state())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("state file mode %v, want 0600", fi.Mode().Perm())
	}
}

// TestJobHermesTools checks when the hermes-tools entry is made: never by
// remove (which must work without hermes-tools-mcp), and only after the
// files were read.
func TestJobHermesTools(t *testing.T) {
	tests := []struct {
		name    string
		remove  bool
		state   string
		wantErr string
	}{
		{"remove does not need it", true, "", ""},
		{"its error fails the job as it is", false, "", toolsbin.ErrNotFound.Error()},
		{"a damaged state file is reported first", false, "{", "is damaged"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newJobDirs(t)
			writeTestFile(t, d.cursor(), userCursor)
			if tt.state != "" {
				writeTestFile(t, d.state(), tt.state)
			}
			job := d.job()
			// No hermes-tools-mcp anywhere.
			job.HermesToolsCommand, job.Remove = "", tt.remove
			job.Executable = func() (string, error) { return filepath.Join(t.TempDir(), "hermes-migrate"), nil }
			job.LookPath = func(string) (string, error) { return "", errors.New("not on PATH") }
			_, err := job.Run(context.Background())
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
			if tt.wantErr != "" && readTestFile(t, d.cursor()) != userCursor {
				t.Error("a failed job changed the config")
			}
		})
	}
}

// TestJobConfigPath finds the file from the injected machine, not the
// process's.
func TestJobConfigPath(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a Linux machine is injected, and temporary directories here are not Linux paths")
	}
	d := newJobDirs(t)
	job := d.job()
	job.Client, job.GOOS = VSCode, "linux"
	xdg := filepath.Join(d.home, "xdg")
	job.Getenv = func(k string) string { return map[string]string{"HOME": d.home, "XDG_CONFIG_HOME": xdg}[k] }
	res, err := job.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(xdg, "Code", "User", "mcp.json"); res.Path != want || !res.Written {
		t.Errorf("path %q written %v, want %q written", res.Path, res.Written, want)
	}

	job.Getenv = func(string) string { return "" }
	if _, err := job.Run(context.Background()); err == nil || !strings.Contains(err.Error(), `home directory "" is not an absolute path`) {
		t.Errorf("no HOME: err = %v", err)
	}
}

// TestJobReadsConfigYAMLAsPyYAML: servers built from anchors and merge
// keys reach the client, and a duplicated server name stops the run
// before any file is written, naming both lines.
func TestJobReadsConfigYAMLAsPyYAML(t *testing.T) {
	d := newJobDirs(t)
	writeTestFile(t, d.yaml(), "x-base: &base\n  command: /bin/srv\n  env:\n    LEVEL: ${LEVEL:-info}\nmcp_servers:\n  a: *base\n  b:\n    <<: *base\n    enabled: \"no\"\n")
	j := d.job()
	j.UserServers = true
	res, err := j.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		MCPServers map[string]map[string]any `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(readTestFile(t, d.cursor())), &got); err != nil {
		t.Fatal(err)
	}
	if a := got.MCPServers["a"]; a == nil || a["command"] != "/bin/srv" || a["env"].(map[string]any)["LEVEL"] != "${env:LEVEL}" {
		t.Errorf("server a = %v", got.MCPServers["a"])
	}
	if _, ok := got.MCPServers["b"]; ok || !slices.Contains(res.Skipped, "b") {
		t.Errorf("disabled server b registered: %v, skipped %q", got.MCPServers["b"], res.Skipped)
	}

	d = newJobDirs(t)
	writeTestFile(t, d.yaml(), "mcp_servers:\n  a:\n    command: x\n  a:\n    command: y\n")
	j = d.job()
	j.UserServers = true
	if _, err := j.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "lines 2 and 4") {
		t.Fatalf("err = %v, want the duplicate's lines", err)
	}
	if readTestFile(t, d.cursor()) != "" {
		t.Error("a file was written despite the duplicate")
	}
}
