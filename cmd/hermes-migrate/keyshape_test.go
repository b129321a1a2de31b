package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKeyBlobsInArgsNeverReachClients: base64 key material after flags
// whose names do not end in a secret word (--key-pem=, --ssh-key-b64),
// after --token, and standing alone, is kept out of codex's config.toml
// and a JSON client's file, and out of the report.
func TestKeyBlobsInArgsNeverReachClients(t *testing.T) {
	blob := "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKjMzEfYyjiWA4R4"
	for _, args := range []string{
		`["--key-pem=` + blob + `"]`,
		`["--ssh-key-b64", "` + blob + `"]`,
		`["--token", "` + blob + `"]`,
		`["serve", "` + blob + `"]`,
	} {
		t.Run(args[:12], func(t *testing.T) {
			e := newTestEnv(t)
			home := e.env["HOME"]
			cursor := filepath.Join(home, ".cursor", "mcp.json")
			if err := os.MkdirAll(filepath.Dir(cursor), 0o755); err != nil {
				t.Fatal(err)
			}
			e.write(t, cursor, "{}\n")
			e.write(t, filepath.Join(e.codexHome, "config.toml"), "model = \"gpt-5.5\"\n")
			e.write(t, filepath.Join(e.hermesHome, "config.yaml"), "mcp_servers:\n  signer:\n    command: signer\n    args: "+args+"\n")
			code, out, stderr := e.run(t, "--client", "codex,cursor", "--user-servers", "--no-plugins")
			if strings.Contains(out+stderr, blob) {
				t.Errorf("the report holds the key (exit %d):\n%s%s", code, out, stderr)
			}
			if !strings.Contains(out, "signer") {
				t.Errorf("the report does not say what became of the server:\n%s", out)
			}
			for _, f := range []string{filepath.Join(e.codexHome, "config.toml"), cursor} {
				b, _ := os.ReadFile(f)
				if strings.Contains(string(b), blob) {
					t.Errorf("%s holds the key:\n%s", f, b)
				}
			}
		})
	}
}
