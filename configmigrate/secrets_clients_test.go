package configmigrate_test

import (
	"strings"
	"testing"

	"github.com/hermes-go/hermes/configmigrate"
	"github.com/hermes-go/hermes/configmigrate/clientsync"
)

// TestSecretFormsThroughClients takes every planted form the whole way,
// as hermes-migrate does: ProtectSecrets, then the client's own file,
// for a client that expands references (Cursor, ${env:VAR}) and one that
// expands none (Claude Desktop). Neither file nor any note holds the
// secret, and each server kept says which variable to set or which
// field to fill in by hand (or, for Claude Desktop's remote servers, why
// it is not registered at all).
func TestSecretFormsThroughClients(t *testing.T) {
	planted := configmigrate.PlantedSecrets(configmigrate.FormSecret)
	kept, problems := configmigrate.ProtectSecrets(planted, false)
	if len(kept)+len(problems) < len(planted) {
		t.Fatalf("%d servers in, %d kept and %d problems", len(planted), len(kept), len(problems))
	}
	for _, c := range []clientsync.Client{clientsync.Cursor, clientsync.ClaudeDesktop} {
		res, err := clientsync.Apply(c, nil, kept, clientsync.Options{})
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		if strings.Contains(string(res.Output), configmigrate.FormSecret) {
			t.Errorf("%s's file holds the secret:\n%s", c, res.Output)
		}
		notes := strings.Join(res.Notes, "\n")
		if strings.Contains(notes, configmigrate.FormSecret) {
			t.Errorf("%s's notes hold the secret:\n%s", c, notes)
		}
		for _, s := range kept {
			var told bool
			for _, n := range res.Notes {
				told = told || strings.HasPrefix(n, s.Name+": ") &&
					(strings.Contains(n, "in the environment the client starts from") || strings.Contains(n, "by hand") || strings.Contains(n, "not registered"))
			}
			if !told {
				t.Errorf("%s: server %s kept with no word on the variable to set", c, s.Name)
			}
		}
	}
	for _, p := range problems {
		if strings.Contains(p, configmigrate.FormSecret) {
			t.Errorf("a problem holds the secret: %s", p)
		}
	}
}
