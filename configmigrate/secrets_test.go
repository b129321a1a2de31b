package configmigrate

import (
	"fmt"
	"regexp"
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
		// The credential word anywhere, as a whole word.
		"ACCESS_TOKEN_VALUE": true, "DB_PASS_PHRASE": true, "GITHUB_TOKEN_RO": true, "API_KEY_PRIMARY": true,
		"X-Auth-Token-Value": true, "accessToken": true, "GitHubToken": true, "clientSecret": true, "apiKey": true,
		"SIGNING_KEY_V2": true, "PASSWD_HASH": true, "MY_CREDENTIALS_JSON": true, "APIKEY_PROD": true,
		// ... and never inside another word, nor before a word that
		// names something about the credential.
		"KEYBOARD_LAYOUT": false, "PASSTHROUGH": false, "PASSTHROUGH_MODE": false, "BYPASS_PROXY": false,
		"TOKENIZERS_PARALLELISM": false, "MAX_TOKENS": false, "MONKEY_BUSINESS": false,
		"GITHUB_TOKEN_FILE": false, "API_KEY_PATH": false, "TOKEN_ENDPOINT": false, "KEY_ID": false,
		"SORT_KEY_ORDER": false, "AUTH_MODE": false, "COOKIE_DOMAIN": false, "KEYRING_BACKEND": false,
		"COMPASS_DIR": false, "PASSENGER_COUNT": false, "PW": true, "MYSQL_PW": true, "PWA_MODE": false,
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
		// A password in any URL's userinfo.
		"https://admin:P4ssw0rd-xyz@mcp.example.com/mcp": true, "wss://u:p@h/": true, "git+ssh://git:tok123@host/r": true,
		"see http://a:b@c": true, "https://admin:${PW}@h/mcp": false, "https://admin@h/mcp": false,
		"ssh://git@github.com/x": false, "https://mastodon.social:443/@alice": false, "https://h:8080/mcp": false,
		// A flag naming a secret, then its value, in one string.
		"srv --password hunter5hunter5": true, "--api-key Zq8w": true, "--client-secret abc": true, "-token xyz": true,
		"--password-stdin x": false, "--token-file /etc/t": false, "--no-password now": false, "-p 8080": false,
		"--token ${T}": false, "--password --verbose": false,
		// A header as one argument.
		"X-Api-Key: plainvalue": true, "Authorization:opaque": true, "Authorization: ${AUTH}": false,
		"Accept: application/json": false, "X-Api-Key: ${K}": false,
	} {
		if got := LooksLikeSecret(text); got != want {
			t.Errorf("LooksLikeSecret(%q) = %v, want %v", text, got, want)
		}
	}
}

var headerName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)

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
	if len(kept) != 5 || kept[0].Env[0].Value.Literal != liveKey {
		t.Errorf("--allow-literal-secrets: kept %d, env %+v", len(kept), kept[0].Env[0])
	}
	// One warning per value copied, naming where it is and never what.
	wantWarned := []string{"fetch: env FETCH_API_KEY", "fetch: env DB_PASSWORD", "fetch: env UPSTREAM", "api: header Authorization", "api: header X-Api-Key", "inargs: args[1]", "inurl: url"}
	if len(problems) != len(wantWarned) {
		t.Errorf("--allow-literal-secrets: %d warnings, want %d: %q", len(problems), len(wantWarned), problems)
	}
	for i, w := range wantWarned {
		if i < len(problems) && !strings.Contains(problems[i], "server "+w+" looks like a credential and was copied as is (--allow-literal-secrets)") {
			t.Errorf("warning %d = %q, want it about %s", i, problems[i], w)
		}
	}
	for _, v := range secretValues {
		if strings.Contains(strings.Join(problems, "\n"), v) {
			t.Errorf("a warning repeats the secret %q", v)
		}
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
// counts as a secret never reaches codex's config.toml, nor any field of
// the servers handed to the other clients: as an env or header value, an
// argument after a flag that names a secret, the password of a URL of
// any scheme, or the default of a reference.
func FuzzProtectSecrets(f *testing.F) {
	f.Add("FETCH_API_KEY", liveKey, uint8(0))
	f.Add("Authorization", "Bearer opaque-session-value-123", uint8(1))
	f.Add("LOG_LEVEL", "info", uint8(2))
	f.Add("X", "postgres://u:hunter2hunter2@db/app", uint8(3))
	f.Add("URL", "https://x.example/mcp?api_key=abcdefghijkl", uint8(4))
	f.Add("ACCESS_TOKEN_VALUE", "Zq8wXv2Lk9abc", uint8(5))
	f.Add("DB_PASS_PHRASE", "hunter5hunter5", uint8(6))
	f.Fuzz(func(t *testing.T, key, value string, sel uint8) {
		if len(value) < 12 || strings.ContainsAny(value, "\"\\\n\r\t") || strings.Contains(key, value) {
			return // short values also occur in the block's own text
		}
		flag := []string{"--api-key", "--token", "--password", "--client-secret", "-token", "--apiKey", "--passwd", "--pass"}[sel%8]
		scheme := []string{"https", "http", "wss", "ftp", "redis", "git+ssh", "custom-x"}[sel%7]
		servers := []Server{
			{Name: "s", Command: "srv", Env: []KeyValue{{Key: key, Value: Value{Literal: value}}}},
			{Name: "h", URL: "https://h.example/mcp", Headers: []KeyValue{{Key: key, Value: Value{Literal: value}}}},
			{Name: "a", Command: "srv", Args: []string{value}},
			{Name: "f", Command: "srv", Args: []string{"-v", flag, value}},
			{Name: "ha", Command: "mcp-remote", Args: []string{"https://h.example/mcp", "--header", key + ": " + value}},
			{Name: "u", URL: scheme + "://user:" + value + "@h.example/mcp"},
			{Name: "da", Command: "srv", Args: []string{flag, "${DEF:-" + value + "}"}},
			{Name: "d", Command: "srv", Env: []KeyValue{{Key: key, Value: ParseValue("${V:-" + value + "}")}}},
			{Name: "dh", URL: "https://h.example/mcp", Headers: []KeyValue{{Key: key, Value: ParseValue("Bearer ${V:-" + value + "}")}}},
		}
		kept, _ := ProtectSecrets(servers, false)
		for _, s := range kept {
			for _, kv := range append(slices.Clone(s.Env), s.Headers...) {
				if literalSecret(kv.Key, kv.Value) {
					t.Fatalf("%s: %s still holds a secret: %+v", s.Name, kv.Key, kv.Value)
				}
			}
		}
		// Where a placement makes the value a secret whatever its
		// shape; what is no secret is left out of the check.
		plain := !strings.ContainsAny(value, "$}{ /?#@") && !strings.HasPrefix(value, "-") && !strings.HasPrefix(value, ".") && !strings.HasPrefix(value, "~")
		byShape := LooksLikeSecret(value)
		// A path under a secret's name (GOOGLE_APPLICATION_CREDENTIALS)
		// says where the secret is.
		byName := SecretName(key) && !strings.Contains(value, "${") && !pathLike(value)
		secretIn := map[string]bool{
			"s": byShape || byName, "h": byShape || byName, "a": byShape, "f": byShape || plain, "u": byShape || plain,
			"ha": byShape || headerName.MatchString(key) && SecretName(key) && !strings.Contains(value, "$") && strings.TrimSpace(value) == value,
			"da": byShape || !strings.Contains(value, "}"),
			"d":  byShape || SecretName(key) && !strings.Contains(value, "}"),
			"dh": byShape || SecretName(key) && !strings.Contains(value, "}"),
		}
		kept = slices.DeleteFunc(kept, func(s Server) bool { return !secretIn[s.Name] })
		for _, s := range kept {
			fields := append([]string{s.Command, s.Cwd, s.URL}, s.Args...)
			for _, kv := range append(slices.Clone(s.Env), s.Headers...) {
				fields = append(fields, kv.Value.Literal, kv.Value.Prefix, kv.Value.Default)
			}
			for _, f := range fields {
				if strings.Contains(f, value) {
					t.Fatalf("server %s still holds the secret %q (key %q): %+v", s.Name, value, key, s)
				}
			}
		}
		out, _, err := MigrateCodex(nil, CodexInput{Servers: kept})
		if err != nil {
			return // a name codex cannot take
		}
		if strings.Contains(string(out), value) {
			t.Fatalf("config.toml holds the secret %q (key %q):\n%s", value, key, out)
		}
	})
}

func TestSecretFlag(t *testing.T) {
	for arg, want := range map[string]bool{
		"--api-key": true, "--apikey": true, "--apiKey": true, "--api_key": true, "--token": true, "-token": true,
		"--access-token": true, "--auth-token": true, "--secret": true, "--client-secret": true, "--clientsecret": true,
		"--password": true, "--passwd": true, "--pass": true, "--db-password": true, "--passphrase": true,
		"--secret-key": true, "--access-key": true, "--pw": true,
		// -p is the port in more CLIs than it is a password.
		"-p": false, "-t": false, "--port": false, "--key": false, "--private-key": true, "--keyboard": false,
		"--token-file": false, "--password-stdin": false, "--password-file": false, "--no-password": false,
		"--ask-pass": false, "--tokenizer": false, "--passthrough": false, "--api-key=x": false, "token": false,
		"--max-tokens": false, "": false,
	} {
		if got := secretFlag(arg); got != want {
			t.Errorf("secretFlag(%q) = %v, want %v", arg, got, want)
		}
	}
}

// TestSecretsInNewPlaces: the reviewer's configs, each with a secret
// where only its key, flag or URL says it is one.
func TestSecretsInNewPlaces(t *testing.T) {
	for _, tc := range []struct {
		name    string
		server  Server
		dropped string // the field the problem names; "" when kept
		secrets []string
		check   func(Server) string
	}{
		{name: "flag-value", server: Server{Command: "node", Args: []string{"s.js", "--api-key", "Zq8wXv2Lk9", "--token", "tok_abc123"}},
			dropped: "args[2]", secrets: []string{"Zq8wXv2Lk9", "tok_abc123"}},
		{name: "short-flag-then-long", server: Server{Command: "srv", Args: []string{"-p", "8080", "--password", "hunter5xx", "--client-secret", "abcdef"}},
			dropped: "args[3]", secrets: []string{"hunter5xx", "abcdef"}},
		{name: "flag-ends-command", server: Server{Command: "srv --token", Args: []string{"tok_abc123"}},
			dropped: "args[0]", secrets: []string{"tok_abc123"}},
		{name: "flag-switches", server: Server{Command: "srv", Args: []string{"--password-stdin", "--token", "${TOK}", "-p", "8080", "--private-key", "/etc/k.pem", "--api-key", "~/.config/k"}}},
		{name: "url-userinfo", server: Server{URL: "https://admin:P4ssw0rd-xyz@mcp.example.com/mcp"},
			dropped: "url", secrets: []string{"P4ssw0rd-xyz"}},
		{name: "arg-userinfo", server: Server{Command: "srv", Args: []string{"--upstream", "ws://u:P4ssw0rd-xyz@h:1/"}},
			dropped: "args[1]", secrets: []string{"P4ssw0rd-xyz"}},
		{name: "env-userinfo", server: Server{Command: "srv", Env: []KeyValue{{Key: "UPSTREAM", Value: Value{Literal: "https://a:P4ssw0rd-xyz@h/"}}}},
			secrets: []string{"P4ssw0rd-xyz"}, check: func(s Server) string {
				if s.Env[0].Value != (Value{Ref: "UPSTREAM"}) {
					return fmt.Sprintf("env = %+v, want $UPSTREAM", s.Env[0].Value)
				}
				return ""
			}},
		{name: "header-userinfo", server: Server{URL: "https://h/mcp", Headers: []KeyValue{{Key: "X-Upstream", Value: Value{Literal: "https://a:P4ssw0rd-xyz@h/"}}}},
			secrets: []string{"P4ssw0rd-xyz"}},
		{name: "ref-default-shaped", server: Server{Command: "srv", Env: []KeyValue{{Key: "GH", Value: ParseValue("${MY_TOK:-ghp_abcdefghijklmnopqrstuvwxyz0123}")}}},
			secrets: []string{"ghp_abcdefghijklmnopqrstuvwxyz0123"}, check: func(s Server) string {
				if s.Env[0].Value != (Value{Ref: "MY_TOK"}) {
					return fmt.Sprintf("env = %+v, want ${MY_TOK} without its default", s.Env[0].Value)
				}
				return ""
			}},
		{name: "ref-default-named", server: Server{Command: "srv", Env: []KeyValue{{Key: "DB_PASSWORD", Value: ParseValue("${PW:-hunter2xyz}")}, {Key: "LEVEL", Value: ParseValue("${LVL:-info}")}}},
			secrets: []string{"hunter2xyz"}, check: func(s Server) string {
				if s.Env[0].Value != (Value{Ref: "PW"}) || s.Env[1].Value != ParseValue("${LVL:-info}") {
					return fmt.Sprintf("env = %+v, want ${PW} and ${LVL:-info} kept", s.Env)
				}
				return ""
			}},
		{name: "header-default", server: Server{URL: "https://h/mcp", Headers: []KeyValue{{Key: "Authorization", Value: ParseValue("Bearer ${T:-opaque123}")}}},
			secrets: []string{"opaque123"}, check: func(s Server) string {
				if s.Headers[0].Value != (Value{Prefix: "Bearer ", Ref: "T"}) {
					return fmt.Sprintf("header = %+v", s.Headers[0].Value)
				}
				return ""
			}},
		{name: "arg-defaults", server: Server{Command: "srv", Args: []string{"--token", "${T:-tok_abc123}", "--api-key=${K:-Zq8wXv2Lk9}", "--level=${L:-info}", "${PASSWORD:-hunter2xyz}"}, URL: ""},
			secrets: []string{"tok_abc123", "Zq8wXv2Lk9", "hunter2xyz"}, check: func(s Server) string {
				if want := []string{"--token", "${T}", "--api-key=${K}", "--level=${L:-info}", "${PASSWORD}"}; !slices.Equal(s.Args, want) {
					return fmt.Sprintf("args = %q, want %q", s.Args, want)
				}
				return ""
			}},
		{name: "url-default", server: Server{URL: "https://admin:${PW:-P4ssw0rd-xyz}@h/mcp"},
			secrets: []string{"P4ssw0rd-xyz"}, check: func(s Server) string {
				if s.URL != "https://admin:${PW}@h/mcp" {
					return "url = " + s.URL
				}
				return ""
			}},
		{name: "named-in-middle", server: Server{Command: "srv", Env: []KeyValue{{Key: "ACCESS_TOKEN_VALUE", Value: Value{Literal: "plainvalue1"}}, {Key: "DB_PASS_PHRASE", Value: Value{Literal: "plainvalue2"}}, {Key: "KEYBOARD_LAYOUT", Value: Value{Literal: "dvorak"}}}},
			secrets: []string{"plainvalue1", "plainvalue2"}, check: func(s Server) string {
				if s.Env[2].Value.Literal != "dvorak" {
					return "KEYBOARD_LAYOUT was taken for a secret"
				}
				return ""
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.server.Name = "s"
			kept, problems := ProtectSecrets([]Server{tc.server}, false)
			if tc.dropped != "" {
				if len(kept) != 0 || len(problems) != 1 || !strings.Contains(problems[0], "its "+tc.dropped+" holds") {
					t.Fatalf("want the server left out naming %s; kept %+v, problems %q", tc.dropped, kept, problems)
				}
			} else if len(kept) != 1 || len(problems) != 0 {
				t.Fatalf("want the server kept; problems %q", problems)
			}
			text := fmt.Sprintf("%+v %q", kept, problems)
			for _, sec := range tc.secrets {
				if strings.Contains(text, sec) {
					t.Errorf("the secret %q survives: %s", sec, text)
				}
			}
			if tc.check != nil && len(kept) == 1 {
				if msg := tc.check(kept[0]); msg != "" {
					t.Error(msg)
				}
			}
			// With --allow-literal-secrets everything is kept, with at
			// least one warning per secret.
			kept, problems = ProtectSecrets([]Server{tc.server}, true)
			if len(kept) != 1 || len(problems) < len(tc.secrets) || len(tc.secrets) == 0 && len(problems) != 0 {
				t.Errorf("--allow-literal-secrets: kept %d, warnings %q", len(kept), problems)
			}
		})
	}
}
