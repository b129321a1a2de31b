package configmigrate

import (
	"slices"
	"strings"
	"testing"
)

func TestSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		"FETCH_API_KEY": true, "GITHUB_TOKEN": true, "CLIENT_SECRET": true, "PASSWORD": true,
		"DB_PASSWORD": true, "Authorization": true, "X-Api-Key": true, "api_key": true,
		"OPENAI_APIKEY": true, "Cookie": true, "MY_SECRET_THING": true, "PGPASSWORD": true,
		"LOG_LEVEL": false, "HERMES_HOME": false, "MONKEY": false, "TOKENIZER_PATH": false,
		"HTTPS_PROXY": false, "Accept": false, "KEYBOARD": false, "PWD": false, "DB_PWD": true,
	} {
		if got := SecretName(name); got != want {
			t.Errorf("SecretName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestLooksLikeSecret(t *testing.T) {
	for text, want := range map[string]bool{
		"sk-live-abcdefghijklmnop":             true,
		"ghp_abcdefghijklmnopqrstuvwxyz012345": true,
		"Bearer abcdefghijklmnopqrstuvwxyz":    true,
		"postgres://user:hunter22@db:5432/app": true,
		"--api-key=abcdefghijklmnop12345":      true,
		"info":                                 false, "/srv/github": false, "-y": false, "@modelcontextprotocol/server-github": false,
		"https://mcp.linear.app/mcp": false, "Bearer ": false, "": false, "8080": false, "+4930123456": false,
		"--timeout=30": false, "--key-file=/etc/k.pem": false,
	} {
		if got := LooksLikeSecret(text); got != want {
			t.Errorf("LooksLikeSecret(%q) = %v, want %v", text, got, want)
		}
	}
}

const liveKey = "sk-live-4f9a8b7c6d5e4f3a2b1c"

// secretServers hold literal secrets in every place a server has text.
func secretServers() []Server {
	return []Server{
		{Name: "fetch", Command: "fetch-mcp", Env: []KeyValue{
			{Key: "FETCH_API_KEY", Value: Value{Literal: liveKey}},
			{Key: "DB_PASSWORD", Value: Value{Literal: "hunter2"}},
			{Key: "LOG_LEVEL", Value: Value{Literal: "info"}},
			{Key: "UPSTREAM", Value: Value{Literal: "token=" + liveKey}},
		}},
		{Name: "api", URL: "https://api.example.com/mcp", Headers: []KeyValue{
			{Key: "Authorization", Value: Value{Literal: "Bearer opaque-value-without-a-known-shape"}},
			{Key: "X-Api-Key", Value: Value{Literal: "plainvalue"}},
			{Key: "Accept", Value: Value{Literal: "application/json"}},
		}},
		{Name: "inargs", Command: "srv", Args: []string{"--key", liveKey}},
		{Name: "inurl", URL: "https://example.com/mcp?key=" + liveKey},
		{Name: "byref", Command: "srv", Env: []KeyValue{{Key: "GITHUB_TOKEN", Value: Value{Ref: "GH_TOKEN"}}}},
	}
}

// SecretValues are the literal secrets of secretServers, which no output
// may contain.
var secretValues = []string{liveKey, "hunter2", "opaque-value-without-a-known-shape", "plainvalue"}

func TestProtectSecrets(t *testing.T) {
	kept, problems := ProtectSecrets(secretServers(), false)
	var names []string
	for _, s := range kept {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, " "); got != "fetch api byref" {
		t.Errorf("kept %q, want fetch api byref (the servers with a credential in args or url are left out)", got)
	}
	if len(problems) != 2 || !strings.Contains(problems[0], "inargs not registered: its args[1]") || !strings.Contains(problems[1], "inurl not registered: its url") {
		t.Errorf("problems = %q", problems)
	}
	env := kept[0].Env
	want := []Value{{Ref: "FETCH_API_KEY"}, {Ref: "DB_PASSWORD"}, {Literal: "info"}, {Ref: "UPSTREAM"}}
	for i, w := range want {
		if env[i].Value != w {
			t.Errorf("env %s = %+v, want %+v", env[i].Key, env[i].Value, w)
		}
	}
	h := kept[1].Headers
	if h[0].Value != (Value{Prefix: "Bearer ", Ref: "API_AUTHORIZATION"}) || h[1].Value != (Value{Ref: "API_X_API_KEY"}) || h[2].Value.Literal != "application/json" {
		t.Errorf("headers = %+v", h)
	}
	if kept[2].Env[0].Value != (Value{Ref: "GH_TOKEN"}) {
		t.Errorf("a reference changed: %+v", kept[2].Env[0])
	}
	notes := strings.Join(kept[0].Notes, "\n") + strings.Join(kept[1].Notes, "\n") + strings.Join(problems, "\n")
	for _, v := range secretValues {
		if strings.Contains(notes, v) {
			t.Errorf("a note repeats the secret %q:\n%s", v, notes)
		}
	}
	if !strings.Contains(notes, "set FETCH_API_KEY in the environment") {
		t.Errorf("notes do not say which variable to set:\n%s", notes)
	}
	// The input is not modified.
	if secretServers()[0].Env[0].Value.Literal != liveKey {
		t.Error("ProtectSecrets changed its input")
	}

	kept, problems = ProtectSecrets(secretServers(), true)
	if len(kept) != 5 || len(problems) != 0 || kept[0].Env[0].Value.Literal != liveKey {
		t.Errorf("--allow-literal-secrets: kept %d, problems %q", len(kept), problems)
	}
	if !strings.Contains(strings.Join(kept[0].Notes, "\n"), "copied as is (--allow-literal-secrets)") {
		t.Errorf("no warning with --allow-literal-secrets: %q", kept[0].Notes)
	}
}

// TestCodexNeverWritesSecrets: codex's managed block gets references only.
func TestCodexNeverWritesSecrets(t *testing.T) {
	kept, _ := ProtectSecrets(secretServers(), false)
	out, _, err := MigrateCodex(nil, CodexInput{Servers: kept})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range secretValues {
		if strings.Contains(string(out), v) {
			t.Errorf("config.toml holds the secret %q:\n%s", v, out)
		}
	}
	if !strings.Contains(string(out), `"FETCH_API_KEY"`) || !strings.Contains(string(out), `bearer_token_env_var = "API_AUTHORIZATION"`) {
		t.Errorf("config.toml does not pass the secrets by name:\n%s", out)
	}
}

// FuzzProtectSecrets: whatever a value and its key are, a value that
// counts as a secret never reaches codex's config.toml.
func FuzzProtectSecrets(f *testing.F) {
	f.Add("FETCH_API_KEY", liveKey)
	f.Add("Authorization", "Bearer opaque-session-value-123")
	f.Add("LOG_LEVEL", "info")
	f.Add("X", "postgres://u:hunter2hunter2@db/app")
	f.Add("URL", "https://x.example/mcp?api_key=abcdefghijkl")
	f.Fuzz(func(t *testing.T, key, value string) {
		if len(value) < 12 || strings.ContainsAny(value, "\"\\\n\r\t") {
			return // short values also occur in the block's own text
		}
		servers := []Server{
			{Name: "s", Command: "srv", Env: []KeyValue{{Key: key, Value: Value{Literal: value}}}},
			{Name: "h", URL: "https://h.example/mcp", Headers: []KeyValue{{Key: key, Value: Value{Literal: value}}}},
			{Name: "a", Command: "srv", Args: []string{value}},
		}
		kept, _ := ProtectSecrets(servers, false)
		for _, s := range kept {
			for _, kv := range append(slices.Clone(s.Env), s.Headers...) {
				if literalSecret(kv.Key, kv.Value) {
					t.Fatalf("%s: %s still holds a secret: %+v", s.Name, kv.Key, kv.Value)
				}
			}
		}
		// A secret by its key's name is one in env and headers only; an
		// argument is judged by its shape.
		byShape := LooksLikeSecret(value)
		if !byShape {
			kept = slices.DeleteFunc(kept, func(s Server) bool { return s.Name == "a" })
		}
		out, _, err := MigrateCodex(nil, CodexInput{Servers: kept})
		if err != nil {
			return // a name codex cannot take
		}
		secret := byShape || SecretName(key) && !strings.Contains(value, "${")
		if secret && strings.Contains(string(out), value) {
			t.Fatalf("config.toml holds the secret %q (key %q):\n%s", value, key, out)
		}
	})
}
