package main

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLiteralSecretWeWroteIsOurs: a secret copied into a client that
// cannot read references (--allow-literal-secrets) is hermes-migrate's
// own value, not one the user filled in by hand: a later plain run takes
// it out again and says so, while a value the user changed by hand stays.
// The ownership state never holds the secret. Covered for a JSON client
// and for the YAML and TOML writers, whose entries take the same path.
func TestLiteralSecretWeWroteIsOurs(t *testing.T) {
	const secret = "sk-proj-Q7vLm2Xr9TbK4wNz8HcJ5pYd3FgA6sUe"
	const mine = "sk-proj-handEditedByTheUser0000000000000"
	tests := []struct {
		client, rel string
		// yaml is the server in config.yaml; field names it in notes.
		yaml, field string
	}{
		{"claude-desktop", ".config/Claude/claude_desktop_config.json",
			"    command: /usr/bin/srv\n    env:\n      API_KEY: " + secret + "\n", "env API_KEY"},
		{"grok-build", ".grok/config.toml",
			"    command: /usr/bin/srv\n    env:\n      API_KEY: " + secret + "\n", "env API_KEY"},
		{"goose", ".config/goose/config.yaml",
			"    url: https://mcp.example.test/mcp\n    headers:\n      X-Api-Key: " + secret + "\n", "headers X-Api-Key"},
	}
	for _, tt := range tests {
		for _, handEdit := range []bool{false, true} {
			name := tt.client + "/ours"
			if handEdit {
				name = tt.client + "/edited by hand"
			}
			t.Run(name, func(t *testing.T) {
				e := newTestEnv(t)
				p := filepath.Join(e.env["HOME"], filepath.FromSlash(tt.rel))
				e.write(t, filepath.Join(e.hermesHome, "config.yaml"), "mcp_servers:\n  api:\n"+tt.yaml)
				state := filepath.Join(e.hermesHome, "hermes-migrate-state.json")

				code, out, stderr := e.run(t, "--client", tt.client, "--user-servers", "--allow-literal-secrets")
				got, _ := os.ReadFile(p)
				if code != exitOK || !strings.Contains(string(got), secret) {
					t.Fatalf("--allow-literal-secrets: exit %d %s%s\nfile:\n%s", code, out, stderr, got)
				}
				checkNoSecret(t, state, secret)
				if b, _ := os.ReadFile(state); !strings.Contains(string(b), `"pbkdf2-sha256$`) {
					t.Errorf("the state does not record what was copied:\n%s", b)
				}

				if handEdit {
					e.write(t, p, strings.ReplaceAll(string(got), secret, mine))
				}
				code, out, stderr = e.run(t, "--client", tt.client, "--user-servers")
				if code != exitOK {
					t.Fatalf("plain run: exit %d %s%s", code, out, stderr)
				}
				got, _ = os.ReadFile(p)
				if strings.Contains(string(got), secret) {
					t.Errorf("the plain run kept the secret --allow-literal-secrets had written:\n%s\nreport:\n%s", got, out)
				}
				if handEdit {
					if !strings.Contains(string(got), mine) || !strings.Contains(out, tt.field[strings.Index(tt.field, " ")+1:]+" kept as filled in by hand") {
						t.Errorf("the value the user changed by hand was not kept:\n%s\nreport:\n%s", got, out)
					}
				} else {
					if !strings.Contains(out, tt.field+": took out the value hermes-migrate had copied there with --allow-literal-secrets") ||
						strings.Contains(out, "kept as filled in by hand") {
						t.Errorf("the report does not say the copied value was taken out:\n%s", out)
					}
					if !strings.Contains(string(got), "hermes-tools") || !strings.Contains(string(got), "api") {
						t.Errorf("the entries are gone:\n%s", got)
					}
				}
				checkNoSecret(t, state, secret)
				checkNoSecret(t, state, mine)
				if b, _ := os.ReadFile(state); strings.Contains(string(b), "copied_secrets") || !strings.Contains(string(b), `"api"`) {
					t.Errorf("after the plain run the state should own api and remember no copied value:\n%s", b)
				}
			})
		}
	}
}

// checkNoSecret fails when the file holds the secret, or its plain SHA-256
// (which would let anyone confirm a guess at once).
func checkNoSecret(t *testing.T, path, secret string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(secret))
	for _, form := range []string{secret, hex.EncodeToString(sum[:]), base64.StdEncoding.EncodeToString(sum[:]), base64.RawURLEncoding.EncodeToString(sum[:])} {
		if strings.Contains(string(b), form) {
			t.Errorf("%s holds the secret (or its bare hash):\n%s", path, b)
		}
	}
}

// TestLiteralSecretInArgsWeWroteIsOurs: a credential in a server's
// arguments has no variable to stand for it, so without
// --allow-literal-secrets the server is not registered at all. An entry
// that a run with the flag wrote, still as it wrote it, is then taken out
// (the credential does not stay behind) and the report says so; one the
// user changed is kept.
func TestLiteralSecretInArgsWeWroteIsOurs(t *testing.T) {
	const secret = "sk-proj-Q7vLm2Xr9TbK4wNz8HcJ5pYd3FgA6sUe"
	const mine = "sk-proj-handEditedByTheUser0000000000000"
	for _, tt := range []struct{ client, rel string }{
		{"cursor", ".cursor/mcp.json"},
		{"grok-build", ".grok/config.toml"},
		{"goose", ".config/goose/config.yaml"},
	} {
		for _, handEdit := range []bool{false, true} {
			name := tt.client + "/ours"
			if handEdit {
				name = tt.client + "/edited by hand"
			}
			t.Run(name, func(t *testing.T) {
				e := newTestEnv(t)
				p := filepath.Join(e.env["HOME"], filepath.FromSlash(tt.rel))
				e.write(t, filepath.Join(e.hermesHome, "config.yaml"), "mcp_servers:\n  api:\n    command: /usr/bin/srv\n    args: [--token, "+secret+"]\n")
				state := filepath.Join(e.hermesHome, "hermes-migrate-state.json")

				code, out, stderr := e.run(t, "--client", tt.client, "--user-servers", "--allow-literal-secrets")
				got, _ := os.ReadFile(p)
				if code != exitOK || !strings.Contains(string(got), secret) {
					t.Fatalf("--allow-literal-secrets: exit %d %s%s\nfile:\n%s", code, out, stderr, got)
				}
				checkNoSecret(t, state, secret)
				if handEdit {
					e.write(t, p, strings.ReplaceAll(string(got), secret, mine))
				}
				code, out, stderr = e.run(t, "--client", tt.client, "--user-servers")
				if code != exitOK {
					t.Fatalf("plain run: exit %d %s%s", code, out, stderr)
				}
				got, _ = os.ReadFile(p)
				if strings.Contains(string(got), secret) {
					t.Errorf("the plain run kept the entry with the secret --allow-literal-secrets had written:\n%s\nreport:\n%s", got, out)
				}
				removed := strings.Contains(out, "api: removed the entry hermes-migrate had written with --allow-literal-secrets")
				if handEdit {
					if !strings.Contains(string(got), mine) || removed {
						t.Errorf("the entry the user changed by hand was not kept:\n%s\nreport:\n%s", got, out)
					}
				} else if !removed || strings.Contains(string(got), "/usr/bin/srv") || !strings.Contains(string(got), "hermes-tools") {
					t.Errorf("the entry was not taken out, or the report does not say so:\n%s\nreport:\n%s", got, out)
				}
				checkNoSecret(t, state, secret)
				checkNoSecret(t, state, mine)
			})
		}
	}
}
