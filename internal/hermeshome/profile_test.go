package hermeshome

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestTakeProfileFlag(t *testing.T) {
	takes := func(f string) bool { return slices.Contains([]string{"-m", "--model", "-q", "--skills"}, f) }
	tests := []struct {
		args     []string
		name     string
		set      bool
		rest     []string
		wantFail bool
	}{
		{args: []string{"chat", "-q", "hi"}, rest: []string{"chat", "-q", "hi"}},
		{args: []string{"-p", "work", "chat"}, name: "work", set: true, rest: []string{"chat"}},
		{args: []string{"chat", "-q", "hi", "--profile", "Work"}, name: "Work", set: true, rest: []string{"chat", "-q", "hi"}},
		{args: []string{"--profile=coder", "tools"}, name: "coder", set: true, rest: []string{"tools"}},
		// The dispatcher's worker line.
		{args: []string{"-p", "coder", "--accept-hooks", "--skills", "kanban-worker", "-m", "m1", "chat", "-q", "work kanban task t1"},
			name: "coder", set: true, rest: []string{"--accept-hooks", "--skills", "kanban-worker", "-m", "m1", "chat", "-q", "work kanban task t1"}},
		// A value-taking flag's value is not a flag.
		{args: []string{"-m", "-p", "chat"}, rest: []string{"-m", "-p", "chat"}},
		{args: []string{"-q", "--profile", "chat"}, rest: []string{"-q", "--profile", "chat"}},
		{args: []string{"--", "-p", "x"}, rest: []string{"--", "-p", "x"}},
		{args: []string{"chat", "-p"}, wantFail: true},
	}
	for _, tt := range tests {
		p, rest, err := TakeProfileFlag(tt.args, takes)
		if tt.wantFail {
			if err == nil {
				t.Errorf("%q: no error", tt.args)
			}
			continue
		}
		if err != nil || p.Name != tt.name || p.Set != tt.set || !slices.Equal(rest, tt.rest) {
			t.Errorf("%q: %+v %q %v, want %q %v %q", tt.args, p, rest, err, tt.name, tt.set, tt.rest)
		}
	}
}

func TestSelect(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"work", "gone"} {
		if err := os.MkdirAll(filepath.Join(root, "profiles", p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The original deletes a profile by leaving a tombstone first.
	os.MkdirAll(filepath.Join(root, "profiles", ".deleted"), 0o755)
	os.WriteFile(filepath.Join(root, "profiles", ".deleted", "gone"), nil, 0o644)
	userHome := t.TempDir()
	os.MkdirAll(filepath.Join(userHome, ".hermes", "profiles", "work"), 0o755)
	work := filepath.Join(root, "profiles", "work")

	tests := []struct {
		name    string
		flag    string
		profile ProfileFlag
		env     map[string]string
		active  string // written to <root>/active_profile when not ""
		want    Selection
		errHas  string
	}{
		{name: "HERMES_HOME", env: map[string]string{"HERMES_HOME": root}, want: Selection{Home: root, Root: root, Profile: "default", Source: "HERMES_HOME", Base: root}},
		{name: "default", env: map[string]string{"HOME": userHome}, want: Selection{Home: filepath.Join(userHome, ".hermes"), Root: filepath.Join(userHome, ".hermes"), Profile: "default", Source: "default"}},
		{name: "data dir suffix", env: map[string]string{"HOME": userHome, "HERMES_DATA_DIR_SUFFIX": "-dev"}, want: Selection{Home: filepath.Join(userHome, ".hermes-dev"), Root: filepath.Join(userHome, ".hermes-dev"), Profile: "default", Source: "default"}},
		{name: "-p under HERMES_HOME", env: map[string]string{"HERMES_HOME": root}, profile: ProfileFlag{Name: " Work ", Set: true}, want: Selection{Home: work, Root: root, Profile: "work", Source: "--profile", Base: root}},
		{name: "-p under the default root", env: map[string]string{"HOME": userHome}, profile: ProfileFlag{Name: "work", Set: true}, want: Selection{Home: filepath.Join(userHome, ".hermes", "profiles", "work"), Root: filepath.Join(userHome, ".hermes"), Profile: "work", Source: "--profile"}},
		{name: "-p from a profile's HERMES_HOME goes to the root's", env: map[string]string{"HERMES_HOME": work}, profile: ProfileFlag{Name: "default", Set: true}, want: Selection{Home: root, Root: root, Profile: "default", Source: "--profile", Base: work}},
		{name: "--hermes-home over HERMES_HOME", flag: work, env: map[string]string{"HERMES_HOME": "/nowhere"}, want: Selection{Home: work, Root: root, Profile: "work", Source: "--hermes-home", Base: work}},
		{name: "a profile home stays", env: map[string]string{"HERMES_HOME": work}, active: "other", want: Selection{Home: work, Root: root, Profile: "work", Source: "HERMES_HOME", Base: work}},
		{name: "sticky profile", env: map[string]string{"HERMES_HOME": root}, active: "work\n", want: Selection{Home: work, Root: root, Profile: "work", Source: "active_profile", Base: root}},
		{name: "sticky default", env: map[string]string{"HERMES_HOME": root}, active: "default\n", want: Selection{Home: root, Root: root, Profile: "default", Source: "HERMES_HOME", Base: root}},
		{name: "-p beats sticky", env: map[string]string{"HERMES_HOME": root}, active: "work", profile: ProfileFlag{Name: "default", Set: true}, want: Selection{Home: root, Root: root, Profile: "default", Source: "--profile", Base: root}},
		{name: "HERMES_PROFILE chooses nothing", env: map[string]string{"HERMES_HOME": root, "HERMES_PROFILE": "work"}, want: Selection{Home: root, Root: root, Profile: "default", Source: "HERMES_HOME", Base: root}},
		{name: "missing profile", env: map[string]string{"HERMES_HOME": root}, profile: ProfileFlag{Name: "nope", Set: true}, errHas: `profile "nope" does not exist`},
		{name: "deleted profile", env: map[string]string{"HERMES_HOME": root}, profile: ProfileFlag{Name: "gone", Set: true}, errHas: `profile "gone" does not exist`},
		{name: "reserved", env: map[string]string{"HERMES_HOME": root}, profile: ProfileFlag{Name: "root", Set: true}, errHas: "reserved"},
		{name: "invalid", env: map[string]string{"HERMES_HOME": root}, profile: ProfileFlag{Name: "../etc", Set: true}, errHas: "not a valid profile name"},
		{name: "empty", env: map[string]string{"HERMES_HOME": root}, profile: ProfileFlag{Name: "  ", Set: true}, errHas: "cannot be empty"},
		{name: "sticky names a missing profile", env: map[string]string{"HERMES_HOME": root}, active: "nope", errHas: "active_profile names profile \"nope\""},
		{name: "sticky names an invalid one", env: map[string]string{"HERMES_HOME": root}, active: "../../x", errHas: "not a valid profile name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			active := filepath.Join(root, ActiveProfileFile)
			os.Remove(active)
			if tt.active != "" {
				if err := os.WriteFile(active, []byte(tt.active), 0o644); err != nil {
					t.Fatal(err)
				}
				defer os.Remove(active)
			}
			got, err := Select(tt.flag, tt.profile, func(k string) string { return tt.env[k] })
			if tt.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errHas) {
					t.Fatalf("err %v, want one with %q", err, tt.errHas)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Select = %+v, %v\nwant %+v", got, err, tt.want)
			}
		})
	}
}

// A FIFO planted at active_profile is passed over at once, not waited on,
// with a note: the original ignores a sticky file it cannot read.
func TestSelectDoesNotBlockOnActiveProfile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs")
	}
	root := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(root, ActiveProfileFile), 0o644); err != nil {
		t.Fatal(err)
	}
	type out struct {
		sel Selection
		err error
	}
	done := make(chan out, 1)
	go func() {
		sel, err := Select("", ProfileFlag{}, func(k string) string { return map[string]string{"HERMES_HOME": root}[k] })
		done <- out{sel, err}
	}()
	select {
	case o := <-done:
		sel, err := o.sel, o.err
		if err != nil || len(sel.Notes) != 1 || !strings.Contains(sel.Notes[0], "FIFO") || sel.Home != root {
			t.Errorf("Select = %+v, %v; want the root and a note naming the FIFO", sel, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Select blocked on a FIFO at active_profile")
	}
}

// TestPin: what another program must be passed to land in the same home.
// A sticky choice is not pinned (that program reads active_profile
// itself); a named home is pinned as named; -p pins the profile, under the
// root of a named home.
func TestPin(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "profiles", "work"), 0o755)
	work := filepath.Join(root, "profiles", "work")
	for _, tt := range []struct {
		name    string
		env     map[string]string
		profile ProfileFlag
		active  string
		want    Pin
	}{
		{name: "default home", env: map[string]string{"HOME": t.TempDir()}, want: Pin{}},
		{name: "HERMES_HOME", env: map[string]string{"HERMES_HOME": root}, want: Pin{Home: root}},
		// The regression the review found: the sticky profile picked the
		// home, but the root came from HERMES_HOME and must still be passed.
		{name: "HERMES_HOME with a sticky profile", env: map[string]string{"HERMES_HOME": root}, active: "work", want: Pin{Home: root}},
		{name: "-p under HERMES_HOME", env: map[string]string{"HERMES_HOME": root}, profile: ProfileFlag{Name: "work", Set: true}, want: Pin{Home: root, Profile: "work"}},
		{name: "-p default under a profile's HERMES_HOME", env: map[string]string{"HERMES_HOME": work}, profile: ProfileFlag{Name: "default", Set: true}, want: Pin{Home: root, Profile: "default"}},
		{name: "-p alone", env: map[string]string{"HOME": t.TempDir()}, profile: ProfileFlag{Name: "default", Set: true}, want: Pin{Profile: "default"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			active := filepath.Join(root, ActiveProfileFile)
			os.Remove(active)
			if tt.active != "" {
				os.WriteFile(active, []byte(tt.active), 0o644)
				defer os.Remove(active)
			}
			sel, err := Select("", tt.profile, func(k string) string { return tt.env[k] })
			if err != nil {
				t.Fatal(err)
			}
			if got := sel.Pin(); got != tt.want {
				t.Errorf("Pin = %+v, want %+v", got, tt.want)
			}
			// The far side: another program given the pin resolves the
			// same home, whatever active_profile says.
			p := sel.Pin()
			env := map[string]string{"HOME": tt.env["HOME"], "HERMES_HOME": p.Home}
			other, err := Select("", ProfileFlag{Name: p.Profile, Set: p.Profile != ""}, func(k string) string { return env[k] })
			if err != nil || other.Home != sel.Home {
				t.Errorf("pinned program serves %s (%v), want %s", other.Home, err, sel.Home)
			}
			// ExactArgs serves exactly the home too.
			args := ExactArgs(sel.Home)
			prof := ProfileFlag{}
			if len(args) == 4 {
				prof = ProfileFlag{Name: args[3], Set: true}
			}
			exact, err := Select(args[1], prof, func(string) string { return "" })
			if err != nil || exact.Home != sel.Home {
				t.Errorf("ExactArgs %q serve %s (%v), want %s", args, exact.Home, err, sel.Home)
			}
		})
	}
}
