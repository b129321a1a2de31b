package cliflag

import (
	"errors"
	"flag"
	"strings"
	"testing"
)

func newSet(out *strings.Builder) *flag.FlagSet {
	fs := flag.NewFlagSet("tool", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.String("toolsets", "", "toolsets")
	fs.String("hermes-home", "", "home")
	fs.Bool("dry-run", false, "dry run")
	fs.Int("max-turns", 0, "turns")
	fs.Usage = func() { out.WriteString("USAGE\n") }
	return fs
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		want      string // in the error; "" for none
		wantUsage bool
	}{
		{[]string{"--toolset", "x"}, `unknown flag --toolset: did you mean "--toolsets"? (run tool -h for the flags)`, false},
		{[]string{"--dryrun"}, `did you mean "--dry-run"?`, false},
		{[]string{"-hermes_home", "x"}, `did you mean "--hermes-home"?`, false},
		{[]string{"--zzz"}, "unknown flag --zzz (run tool -h for the flags)", false},
		{[]string{"--toolsets"}, "flag --toolsets needs a value", false},
		{[]string{"--max-turns", "many"}, `invalid value "many" for flag -max-turns`, false},
		{[]string{"-h"}, "help requested", true},
		{[]string{"--toolsets", "web"}, "", false},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out strings.Builder
			err := Parse(newSet(&out), tc.args)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("error %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if tc.wantUsage != (out.String() == "USAGE\n") {
				t.Errorf("printed %q; usage wanted: %v", out.String(), tc.wantUsage)
			}
			if tc.wantUsage && !errors.Is(err, flag.ErrHelp) {
				t.Errorf("-h gave %v, want flag.ErrHelp", err)
			}
		})
	}
}
