package configmigrate

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// ownProfile is a config.toml defining a permission profile of the user's.
const ownProfile = "[permissions.lab]\nextends = \":workspace\"\n"

// permissionCases are default_permissions values and whether codex takes
// them; TestRealCodexPermissions holds the real codex to the same table.
var permissionCases = func() []struct {
	profile, configTOML string
	ok                  bool
} {
	own := ownProfile
	return []struct {
		profile, configTOML string
		ok                  bool
	}{
		{"", "", true},
		{":read-only", "", true},
		{":workspace", "", true},
		{":danger-full-access", "", true},
		{"workspace", "", true}, // the ':' is added for a built-in name
		{"read-only", "", true},
		{":bogus", "", false},
		{":danger-no-sandbox", "", false}, // named in old docs, not in codex
		{":lab", own, false},              // a user's profile has no ':'
		{"lab", own, true},
		{"lab", "", false},
		{"labs", own, false},
		{"Workspace", "", false},
		{" :workspace", "", false},
	}
}()

// TestCheckPermissions: default_permissions takes what codex accepts
// (codex-app-server.md §11.5) and refuses the rest before any byte is
// written, naming the values that would work.
func TestCheckPermissions(t *testing.T) {
	for _, tt := range permissionCases {
		_, _, err := MigrateCodex([]byte(tt.configTOML), CodexInput{DefaultPermissions: tt.profile})
		if tt.ok != (err == nil) {
			t.Errorf("%q with %q: err %v, want ok=%v", tt.profile, tt.configTOML, err, tt.ok)
			continue
		}
		if err == nil {
			continue
		}
		if !errors.Is(err, ErrUnknownPermissions) {
			t.Errorf("%q: %v does not match ErrUnknownPermissions", tt.profile, err)
		}
		for _, want := range append([]string{`"` + tt.profile + `"`, `"none"`, "[permissions.<id>]"}, BuiltinPermissions()...) {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%q: message %q does not name %s", tt.profile, err, want)
			}
		}
	}
}

// FuzzDefaultPermissions: whatever profile is asked for, MigrateCodex either
// refuses it with ErrUnknownPermissions and nothing else, or writes a
// default_permissions that is a built-in or the profile config.toml
// defines: never a value codex would refuse to load.
func FuzzDefaultPermissions(f *testing.F) {
	for _, c := range permissionCases {
		f.Add(c.profile)
	}
	f.Add("\":workspace")
	f.Add("lab\n")
	f.Fuzz(func(t *testing.T, profile string) {
		out, rep, err := MigrateCodex([]byte(ownProfile), CodexInput{DefaultPermissions: profile})
		if err != nil {
			if !errors.Is(err, ErrUnknownPermissions) {
				t.Fatalf("%q: %v", profile, err)
			}
			return
		}
		m, err := parseTOML(out)
		if err != nil {
			t.Fatalf("%q: output does not parse: %v", profile, err)
		}
		got, _ := m["default_permissions"].(string)
		if profile == "" {
			if got != "" {
				t.Fatalf("no profile asked for, %q written", got)
			}
			return
		}
		if got != rep.DefaultPermissions || !slices.Contains(append(BuiltinPermissions(), "lab"), got) {
			t.Fatalf("%q: wrote %q (report %q)", profile, got, rep.DefaultPermissions)
		}
	})
}
