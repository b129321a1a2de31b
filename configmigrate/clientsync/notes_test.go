package clientsync

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/configmigrate"
)

// TestNotesMatchTheEntry is the rule behind the notes a server brings
// from configmigrate (a secret turned into a reference): every client
// keeps a note saying the entry reads $VAR only when its entry does
// reference VAR, and a client that cannot is told to fill the value in by
// hand instead, never both.
func TestNotesMatchTheEntry(t *testing.T) {
	tests := []struct {
		name   string
		server configServer
		// field is what the by-hand note names when the client has no
		// reference for it.
		field string
	}{
		{"env secret", configServer{Name: "fetch", Command: "/bin/fetch", Env: []configmigrate.KeyValue{kv("API_KEY", lit("sk-abcdefghijklmnopqrstuvwxyz123456"))}}, "env API_KEY"},
		{"env secret of its own name", configServer{Name: "gh", Command: "/bin/gh", Env: []configmigrate.KeyValue{kv("GITHUB_TOKEN", lit("ghp_abcdefghijklmnopqrstuvwxyz1234567890"))}}, "env GITHUB_TOKEN"},
		{"header secret", configServer{Name: "api", URL: "https://mcp.example.com/mcp", Headers: []configmigrate.KeyValue{kv("Authorization", lit("Bearer abcdefghijklmnopqrstuvwxyz123456"))}}, "headers Authorization"},
	}
	readsRE := regexp.MustCompile(`reads \$([A-Za-z_][A-Za-z0-9_]*)`)
	for _, tt := range tests {
		protected, _ := configmigrate.ProtectSecrets([]configmigrate.Server{tt.server}, false)
		if len(protected) != 1 || !slices.ContainsFunc(protected[0].Notes, readsRE.MatchString) {
			t.Fatalf("%s: ProtectSecrets gave %+v, want a note that the entry reads a variable", tt.name, protected)
		}
		for _, c := range entryClients() {
			res, err := Apply(c, nil, protected, Options{})
			if err != nil {
				t.Fatalf("%s, %s: %v", tt.name, c, err)
			}
			if len(res.Skipped) > 0 {
				continue
			}
			out := string(res.Output)
			var claims, byHand bool
			for _, n := range res.Notes {
				for _, m := range readsRE.FindAllStringSubmatch(n, -1) {
					claims = true
					if !strings.Contains(out, m[1]) {
						t.Errorf("%s, %s: note %q, yet the entry does not reference %s:\n%s", tt.name, c, n, m[1], out)
					}
					// Said once: not again in the list of variables read.
					for _, o := range res.Notes {
						if strings.Contains(o, "reads "+m[1]) || strings.Contains(o, ", "+m[1]+" from the environment") {
							t.Errorf("%s, %s: %s named twice: %q", tt.name, c, m[1], res.Notes)
						}
					}
				}
				byHand = byHand || strings.Contains(n, tt.field+" not written")
				// A client that hands a server its own environment gets
				// a variable of the same name without a reference.
				if name, ok := strings.CutPrefix(tt.field, "env "); ok && dialects[c].inheritsEnv {
					byHand = byHand || strings.Contains(n, "gets "+name+" from the environment")
				}
			}
			if claims == byHand {
				t.Errorf("%s, %s: want exactly one of a reads-$VAR note (%v) and a by-hand note (%v): %q", tt.name, c, claims, byHand, res.Notes)
			}
		}
	}
}

// TestScrubbedVariablesAreNamed: a client that removes variables from its
// own environment (Copilot CLI, TestRealCopilotCLIEntryFields) cannot hand
// them to a server, by reference or pass-through, so the user is told,
// once per variable; a client that keeps them says nothing of the kind.
func TestScrubbedVariablesAreNamed(t *testing.T) {
	server := configServer{Name: "gh", Command: "/bin/gh", Env: []configmigrate.KeyValue{
		kv("GITHUB_TOKEN", configmigrate.ParseValue("${GITHUB_TOKEN}")),
		kv("TOKEN_AGAIN", configmigrate.ParseValue("${GITHUB_TOKEN}")),
		kv("GH_HOST", configmigrate.ParseValue("${GH_HOST}")),
	}}
	for _, c := range entryClients() {
		d := dialects[c]
		res, err := Apply(c, nil, []configServer{server}, Options{})
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		var said []string
		for _, n := range res.Notes {
			if strings.Contains(n, "removes") && strings.Contains(n, "from its own environment") {
				said = append(said, n)
			}
		}
		want := slices.Contains(d.scrubbed, "GITHUB_TOKEN") && d.ref != nil
		if want != (len(said) == 1) || len(said) > 1 {
			t.Errorf("%s: notes on removed variables %q, want one: %v", c, said, want)
			continue
		}
		if want && (!strings.Contains(said[0], "removes GITHUB_TOKEN from") || strings.Contains(said[0], "GH_HOST")) {
			t.Errorf("%s: %q does not name exactly GITHUB_TOKEN", c, said[0])
		}
	}
}

// TestProjectFilesHoldNoUserOnlyReferences: a client that expands
// references in its user file only (Kilo drops a whole project file that
// holds one) gets them there, and none in a project file, where the value
// is left for the user to fill in, with a note.
func TestProjectFilesHoldNoUserOnlyReferences(t *testing.T) {
	server := configServer{Name: "gh", Command: "/bin/gh", Env: []configmigrate.KeyValue{
		kv("GH_TOKEN", configmigrate.ParseValue("${GITHUB_TOKEN}")),
		kv("GITHUB_TOKEN", configmigrate.ParseValue("${GITHUB_TOKEN}")),
	}}
	checked := 0
	for _, c := range Clients() {
		d := dialects[c]
		if !d.refUserOnly {
			continue
		}
		checked++
		ref := d.ref("GITHUB_TOKEN")
		user, err := Apply(c, nil, []configServer{server}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(user.Output), ref) {
			t.Errorf("%s: the user file lacks %s:\n%s", c, ref, user.Output)
		}
		project, err := Apply(c, nil, []configServer{server}, Options{Project: true})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(project.Output), ref) || !slices.ContainsFunc(project.Notes, func(n string) bool { return strings.Contains(n, "env GH_TOKEN not written") }) {
			t.Errorf("%s: a project file with a reference, or no note:\n%s\n%q", c, project.Output, project.Notes)
		}
		// A variable of the same name reaches the server anyway when
		// the client hands it its own environment.
		inherited := slices.ContainsFunc(project.Notes, func(n string) bool { return strings.Contains(n, "gets GITHUB_TOKEN from the environment") })
		if inherited != d.inheritsEnv {
			t.Errorf("%s: hands its environment on: %v, yet the note on GITHUB_TOKEN says %q", c, d.inheritsEnv, project.Notes)
		}
	}
	if checked == 0 {
		t.Fatal("no client expands references in its user file only; the rule is untested")
	}
}
