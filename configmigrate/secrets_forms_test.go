package configmigrate

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// formSecret has no shape any redaction pattern knows: only where it
// stands says it is a credential.
const formSecret = "Zq8wXv2Lk9mN4pQ7"

const randomTail = "xR4nd0m7"

// secretForm is one way a config writes a credential down. plant puts
// sec into a server under the secret name key (for the forms that have
// one); args are inserted as one unit, so a position never splits a flag
// from its value.
type secretForm struct {
	name  string
	plant func(key, sec string) Server
}

func argsForm(name string, args func(key, sec string) []string) secretForm {
	return secretForm{name, func(key, sec string) Server {
		return Server{Command: "srv", Args: args(key, sec)}
	}}
}

// envForm writes value under envKey, or under the secret's name when
// envKey is "".
func envForm(name, envKey string, value func(key, sec string) string) secretForm {
	return secretForm{name, func(key, sec string) Server {
		k := envKey
		if k == "" {
			k = key
		}
		return Server{Command: "srv", Env: []KeyValue{{Key: k, Value: ParseValue(value(key, sec))}}}
	}}
}

func urlForm(name string, u func(key, sec string) string) secretForm {
	return secretForm{name, func(key, sec string) Server { return Server{URL: u(key, sec)} }}
}

func headerForm(name string, kv func(key, sec string) (string, string)) secretForm {
	return secretForm{name, func(key, sec string) Server {
		k, v := kv(key, sec)
		return Server{URL: "https://mcp.example.com/mcp", Headers: []KeyValue{{Key: k, Value: ParseValue(v)}}}
	}}
}

// secretForms are the places and spellings of issue 22's review, and the
// others of their class: JSON (plain, escaped, nested, in a flag's
// value), other map syntaxes, URL userinfo with and without a scheme,
// query strings and fragments, headers as arguments, both spellings of
// an option, text mixing references and literals, base64, and every case
// variant of the name (the key argument).
var secretForms = []secretForm{
	argsForm("json-arg", func(k, s string) []string { return []string{"--config", `{"` + k + `":"` + s + `"}`} }),
	argsForm("json-flag-value", func(k, s string) []string { return []string{`--config={"` + k + `": "` + s + `"}`} }),
	argsForm("json-header-flag", func(k, s string) []string { return []string{`--header={"Authorization":"Bearer ` + s + `"}`} }),
	argsForm("json-headers-arg", func(k, s string) []string {
		return []string{"--headers", `{"Accept":"application/json","` + k + `":"` + s + `"}`}
	}),
	argsForm("json-nested", func(k, s string) []string {
		return []string{"--config", `{"upstream":{"auth":{"user":"me","` + k + `":"` + s + `"}},"retries":3}`}
	}),
	argsForm("json-array", func(k, s string) []string { return []string{`--argv=["serve","--` + k + `","` + s + `"]`} }),
	argsForm("json-number", func(k, s string) []string { return []string{`{"password": 4711081512}`} }),
	argsForm("json-escaped", func(k, s string) []string { return []string{`"{\"` + k + `\":\"` + s + `\"}"`} }),
	argsForm("json-twice-escaped", func(k, s string) []string { return []string{`{\\\"` + k + `\\\":\\\"` + s + `\\\"}`} }),
	argsForm("json-after-refs", func(k, s string) []string {
		return []string{strings.Repeat("${A}", 9) + "[1,2,3,4,5,6,7,8,9]" + `{"nested":{"` + k + `":"` + s + `"}}`}
	}),
	argsForm("python-dict", func(k, s string) []string { return []string{"--opts", "{'" + k + "': '" + s + "'}"} }),
	argsForm("yaml-flow", func(k, s string) []string { return []string{"--opts", "{" + k + ": " + s + ", mode: fast}"} }),
	argsForm("toml-inline", func(k, s string) []string { return []string{"--opts", "{ " + k + ` = "` + s + `" }`} }),
	argsForm("flag-equals", func(k, s string) []string { return []string{"--" + k + "=" + s} }),
	argsForm("flag-space", func(k, s string) []string { return []string{"--" + k, s} }),
	argsForm("single-dash-flag", func(k, s string) []string { return []string{"-" + k, s} }),
	// A bare --key takes a secret only when the value looks generated
	// (--key title is a sort key); randomTail makes it look so.
	argsForm("bare-key-equals", func(k, s string) []string { return []string{"--key=" + s + randomTail} }),
	argsForm("bare-key-space", func(k, s string) []string { return []string{"--key", s + randomTail} }),
	argsForm("bare-key-default", func(k, s string) []string { return []string{"--key", "${K:-" + s + randomTail + "}"} }),
	argsForm("npmrc-auth-token", func(k, s string) []string { return []string{"--npmrc", "//registry.npmjs.org/:_authToken=" + s} }),
	argsForm("colon-flag", func(k, s string) []string { return []string{"--" + k + ":" + s} }),
	argsForm("java-property", func(k, s string) []string { return []string{"-Dservice." + k + "=" + s} }),
	argsForm("java-password-property", func(k, s string) []string { return []string{"-Dpassword=" + s} }),
	argsForm("helm-set", func(k, s string) []string { return []string{"--set", "auth." + k + "=" + s} }),
	argsForm("curl-user", func(k, s string) []string { return []string{"-u", "admin:" + s} }),
	argsForm("basic-auth-flag", func(k, s string) []string { return []string{"--basic-auth=admin:" + s} }),
	argsForm("connection-string", func(k, s string) []string { return []string{"--conn", "Server=db;Uid=sa;Pwd=" + s + ";"} }),
	argsForm("connection-string-password", func(k, s string) []string { return []string{"Server=db;User Id=sa;Password = " + s} }),
	argsForm("ini-lines", func(k, s string) []string { return []string{"[auth]\nuser = me\n" + k + " = " + s + "\n"} }),
	argsForm("json-pretty", func(k, s string) []string { return []string{"{\n  \"" + k + "\": \"" + s + "\"\n}"} }),
	argsForm("json-in-json", func(k, s string) []string { return []string{`{"config":"{\"` + k + `\":\"` + s + `\"}"}`} }),
	argsForm("json-unicode-key", func(k, s string) []string { return []string{`{"api\u005fkey":"` + s + `"}`} }),
	argsForm("db-password-value-flag", func(k, s string) []string { return []string{"--db-password-value", s} }),
	urlForm("query-sas-sig", func(k, s string) string { return "https://acct.blob.core.windows.net/c/f?sv=2022-11-02&sig=" + s }),
	argsForm("header-arg", func(k, s string) []string { return []string{"--header", k + ": " + s} }),
	argsForm("header-arg-nospace", func(k, s string) []string { return []string{"-H", k + ":" + s} }),
	argsForm("header-flag-equals", func(k, s string) []string { return []string{"--header=" + k + ": " + s} }),
	argsForm("header-cookie", func(k, s string) []string { return []string{"--header", "Cookie: session=" + s} }),
	argsForm("userinfo-schemeless", func(k, s string) []string { return []string{"--db", "user:" + s + "@db.example.com:5432/x"} }),
	argsForm("userinfo-schemeless-nouser", func(k, s string) []string { return []string{"--cache=:" + s + "@localhost:6379"} }),
	argsForm("userinfo-schemeless-ip", func(k, s string) []string { return []string{"admin:" + s + "@10.0.0.5"} }),
	argsForm("userinfo-redis", func(k, s string) []string { return []string{"redis://:" + s + "@cache.example.com:6379/0"} }),
	argsForm("userinfo-encoded", func(k, s string) []string { return []string{"https://me:" + s + "%40x@h.example.com/"} }),
	argsForm("query-in-arg", func(k, s string) []string {
		return []string{"--upstream", "https://h.example.com/api?lang=en&" + k + "=" + s}
	}),
	argsForm("env-assign-arg", func(k, s string) []string { return []string{"-e", k + "=" + s} }),
	argsForm("base64-json", func(k, s string) []string {
		return []string{"--sa", base64.StdEncoding.EncodeToString([]byte(`{"type":"service_account","` + k + `":"` + s + `"}`))}
	}),
	argsForm("basic-auth-arg", func(k, s string) []string { return []string{"--header", "X-Upstream: Basic " + s} }),
	secretForm{"command-line", func(k, s string) Server { return Server{Command: "srv --" + k + " " + s} }},
	secretForm{"command-json", func(k, s string) Server { return Server{Command: `srv --config={"` + k + `":"` + s + `"}`} }},
	urlForm("query-token", func(k, s string) string { return "https://mcp.example.com/mcp?token=" + s }),
	urlForm("query-api-key", func(k, s string) string { return "https://mcp.example.com/mcp?x=1&api_key=" + s }),
	urlForm("query-access-token", func(k, s string) string { return "https://mcp.example.com/mcp?access_token=" + s + "&y=2" }),
	urlForm("query-named", func(k, s string) string { return "https://mcp.example.com/mcp?" + k + "=" + s }),
	urlForm("query-encoded-name", func(k, s string) string { return "https://mcp.example.com/mcp?" + url.QueryEscape("api_key") + "=" + s }),
	urlForm("query-percent-name", func(k, s string) string { return "https://mcp.example.com/mcp?api%5Fkey=" + s }),
	urlForm("fragment-token", func(k, s string) string { return "https://mcp.example.com/cb#access_token=" + s }),
	urlForm("path-param", func(k, s string) string { return "https://mcp.example.com/mcp;" + k + "=" + s }),
	urlForm("url-userinfo", func(k, s string) string { return "https://admin:" + s + "@mcp.example.com/mcp" }),
	envForm("env-named", "", nil),
	envForm("env-json", "MCP_CONFIG", func(k, s string) string { return `{"server":{"` + k + `":"` + s + `"}}` }),
	envForm("env-escaped-json", "MCP_CONFIG", func(k, s string) string { return `{\"` + k + `\":\"` + s + `\"}` }),
	envForm("env-bearer", "UPSTREAM_HEADER", func(k, s string) string { return "Bearer " + s }),
	envForm("env-ref-and-literal", "", func(k, s string) string { return "${USER}:" + s }),
	envForm("env-literal-and-ref", "", func(k, s string) string { return s + ":${OTHER}" }),
	envForm("env-prefix-before-ref", "", func(k, s string) string { return s + " ${OTHER}" }),
	envForm("env-schemeless-userinfo", "DATABASE", func(k, s string) string { return "user:" + s + "@db.example.com:5432/x" }),
	envForm("env-options", "NODE_OPTIONS", func(k, s string) string { return "--" + k + "=" + s + " --trace" }),
	envForm("env-base64", "SA_JSON", func(k, s string) string {
		return base64.StdEncoding.EncodeToString([]byte(`{"` + k + `":"` + s + `"}`))
	}),
	headerForm("header-named", func(k, s string) (string, string) { return k, s }),
	headerForm("header-authentication", func(k, s string) (string, string) { return "Authentication", s }),
	headerForm("header-proxy-authorization", func(k, s string) (string, string) { return "Proxy-Authorization", "Basic " + s }),
	headerForm("header-cookie", func(k, s string) (string, string) { return "Cookie", "sid=" + s }),
	headerForm("header-literal-then-ref", func(k, s string) (string, string) { return k, s + " ${X}" }),
	headerForm("header-json", func(k, s string) (string, string) { return "X-Upstream-Config", `{"` + k + `":"` + s + `"}` }),
}

// envForm with a nil value is the plain case: the secret under the key.
func init() {
	for i, f := range secretForms {
		if f.name == "env-named" {
			secretForms[i].plant = func(k, s string) Server {
				return Server{Command: "srv", Env: []KeyValue{{Key: k, Value: Value{Literal: s}}}}
			}
		}
	}
}

// secretKeys are the spellings of a credential's name a config uses.
var secretKeys = []string{"apiKey", "api_key", "api-key", "ApiKey", "API_KEY", "x-api-key", "X-Api-Key", "apikey",
	"accessToken", "access_token", "token", "clientSecret", "client_secret", "password", "Password", "passwd",
	"authToken", "private_token", "OPENAI_API_KEY", "secret"}

// secretSurvives reports where sec still stands in what ProtectSecrets
// returned, if anywhere: a field of a kept server, a note or a problem.
func secretSurvives(sec string, kept []Server, problems []string) string {
	for _, s := range kept {
		fields := append([]string{s.Name, s.Command, s.Cwd, s.URL}, s.Args...)
		fields = append(fields, s.Notes...)
		for _, kv := range append(slices.Clone(s.Env), s.Headers...) {
			fields = append(fields, kv.Key, kv.Value.Literal, kv.Value.Prefix, kv.Value.Default)
		}
		for _, f := range fields {
			if containsSecret(f, sec) {
				return fmt.Sprintf("server %s: %q", s.Name, f)
			}
		}
	}
	for _, p := range problems {
		if containsSecret(p, sec) {
			return "problem " + p
		}
	}
	return ""
}

var b64RunRE = regexp.MustCompile(`[A-Za-z0-9+/]{16,}={0,2}`)

// containsSecret also finds sec base64-encoded, as a form may plant it.
func containsSecret(text, sec string) bool {
	if strings.Contains(text, sec) {
		return true
	}
	for _, run := range b64RunRE.FindAllString(text, -1) {
		if b, err := base64.StdEncoding.DecodeString(run); err == nil && strings.Contains(string(b), sec) {
			return true
		}
	}
	return false
}

var setVarRE = regexp.MustCompile(`set ([A-Za-z_][A-Za-z0-9_]*) .*in the environment the client starts from`)

// TestSecretForms is the rule as a table: every form, for every spelling
// of the name, either leaves the server out with a problem that says how
// to move the secret, or keeps it with the secret replaced by a
// reference and a note naming the variable to set. Codex's config.toml
// never holds it; with --allow-literal-secrets the server is kept and
// the user warned.
func TestSecretForms(t *testing.T) {
	for _, f := range secretForms {
		for _, key := range secretKeys {
			s := f.plant(key, formSecret)
			s.Name = "srv"
			kept, problems := ProtectSecrets([]Server{s}, false)
			where := secretSurvives(formSecret, kept, problems)
			if where != "" {
				t.Errorf("%s, key %s: the secret survives in %s\nserver: %+v", f.name, key, where, s)
				continue
			}
			switch {
			case len(kept) == 0:
				if len(problems) != 1 || !strings.Contains(problems[0], "server srv not registered") || !strings.Contains(problems[0], "${VAR}") {
					t.Errorf("%s, key %s: left out without saying how to move the secret: %q", f.name, key, problems)
				}
			case reflect.DeepEqual(kept[0], s):
				t.Errorf("%s, key %s: kept unchanged", f.name, key)
			default:
				m := setVarRE.FindStringSubmatch(strings.Join(kept[0].Notes, "\n"))
				if m == nil {
					t.Errorf("%s, key %s: no note names the variable to set: %q", f.name, key, kept[0].Notes)
				} else if !refersTo(kept[0], m[1]) {
					t.Errorf("%s, key %s: the note says set %s, which the entry does not read: %+v", f.name, key, m[1], kept[0])
				}
			}
			out, _, err := MigrateCodex(nil, CodexInput{Servers: kept})
			if err != nil {
				t.Fatalf("%s, key %s: %v", f.name, key, err)
			}
			if containsSecret(string(out), formSecret) {
				t.Errorf("%s, key %s: config.toml holds the secret:\n%s", f.name, key, out)
			}

			kept, problems = ProtectSecrets([]Server{s}, true)
			if len(kept) != 1 || !reflect.DeepEqual(kept[0].Args, s.Args) || len(problems) == 0 || !strings.Contains(problems[0], "--allow-literal-secrets") {
				t.Errorf("%s, key %s: --allow-literal-secrets: kept %+v, warnings %q", f.name, key, kept, problems)
			}
		}
	}
}

// refersTo reports whether s reads the variable name: as an env or
// header value, or inside its command, arguments or URL.
func refersTo(s Server, name string) bool {
	for _, kv := range append(slices.Clone(s.Env), s.Headers...) {
		if kv.Value.Ref == name {
			return true
		}
	}
	for _, f := range append([]string{s.Command, s.URL, s.Cwd}, s.Args...) {
		if strings.Contains(f, "${"+name+"}") {
			return true
		}
	}
	return false
}

// plainServers hold no secret, though some look close to one; each must
// come through unchanged, with no note and no problem.
var plainServers = []Server{
	{Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-github", "--port=8080", "-p", "8080", "--port", "8080"}},
	{Command: "srv", Args: []string{"/home/me/data", "./rel/dir", "~/notes", `C:\Users\me\data`, "--root=/srv/files"}},
	{Command: "srv", Args: []string{"--model=gpt-4o-mini", "--model", "claude-3-5-sonnet-20241022", "--max-tokens=4096", "--tokenizer=cl100k_base"}},
	{Command: "srv", Args: []string{"--key-file=/etc/k.pem", "--private-key=/etc/k.pem", "--private-key", "/etc/k.pem", "--token-file", "~/.config/t"}},
	{Command: "srv", Args: []string{"--api-key-env=OPENAI_API_KEY", "--token-env", "GITHUB_TOKEN", "--api-key", "${OPENAI_API_KEY}", "--api-key=${K}", "--token=$TOKEN"}},
	{Command: "srv", Args: []string{"--key=name", "--key", "title", "--key", "${SORT:-title}", "--sort-key=created_at", "--public-key=AAAAC3NzaC1lZDI1NTE5AAAAIJ4x", "--format=key:value"}},
	{Command: "srv", Args: []string{"--auth=oauth", "--auth", "none", "--token", "env", "--password-stdin", "--no-password", "--secret-name", "prod-db", "-u", "me", "--user", "admin"}},
	{Command: "srv", Args: []string{"--config", `{"model":"gpt-4o","maxTokens":1000,"token_budget":20000,"key":"title","auth":{"type":"oauth"}}`, `--opts={"timeout": 30, "tokenFile": "/etc/t"}`}},
	{Command: "srv", Args: []string{"git@github.com:org/repo.git", "redis:7@sha256:0123abcdef", "mailto:ops@example.com", "ops@example.com", "+4930123456"}},
	{Command: "srv", Args: []string{"--header", "Accept: application/json", "--header=Content-Type: application/json", "-H", "Authorization: Bearer ${TOKEN}", "--header", "X-Api-Key: ${K}"}},
	{Command: "srv", Args: []string{"https://h.example.com/api?page=2&lang=en", "https://h.example.com:8443/mcp", "postgres://db.example.com:5432/app", "user@db.example.com"}},
	{Command: "srv", Env: []KeyValue{
		{Key: "LOG_LEVEL", Value: Value{Literal: "info"}}, {Key: "MODEL", Value: Value{Literal: "gpt-4o"}},
		{Key: "HERMES_HOME", Value: Value{Literal: "~/.hermes"}}, {Key: "TOKENIZERS_PARALLELISM", Value: Value{Literal: "false"}},
		{Key: "GOOGLE_APPLICATION_CREDENTIALS", Value: Value{Literal: "/home/me/sa.json"}},
		{Key: "DATABASE_URL", Value: Value{Literal: "postgres://db.example.com/app"}},
		{Key: "DB_AUTH", Value: ParseValue("${DB_USER}:${DB_PASSWORD}")},
		{Key: "GITHUB_TOKEN", Value: ParseValue("${GH_TOKEN}")},
		{Key: "NODE_OPTIONS", Value: Value{Literal: "--max-old-space-size=4096"}},
	}},
	{URL: "https://mcp.example.com/mcp?model=gpt-4o&lang=en", Headers: []KeyValue{
		{Key: "Authorization", Value: ParseValue("Bearer ${T}")}, {Key: "X-Api-Key", Value: ParseValue("${K}")},
		{Key: "Accept", Value: Value{Literal: "application/json"}}, {Key: "X-Request-Source", Value: Value{Literal: "hermes"}},
	}},
}

func TestNoSecretStaysLiteral(t *testing.T) {
	for i, s := range plainServers {
		s.Name = fmt.Sprintf("plain%d", i)
		kept, problems := ProtectSecrets([]Server{s}, false)
		if len(problems) != 0 || len(kept) != 1 {
			t.Errorf("%s taken for a secret: %q\nserver: %+v", s.Name, problems, s)
			continue
		}
		if !reflect.DeepEqual(kept[0], s) {
			t.Errorf("%s changed:\n got %+v\nwant %+v", s.Name, kept[0], s)
		}
	}
}

// fillers are arguments with no secret, among which a fuzzed form is
// planted.
var fillers = []string{"-y", "@scope/server", "--port=8080", "--verbose", "/srv/data", "--model", "gpt-4o"}

// FuzzSecretPlacement plants a fuzzed credential in one of secretForms,
// under one spelling of its name, at any position among other arguments,
// and checks that it reaches no field of what ProtectSecrets returns nor
// codex's config.toml, and that --allow-literal-secrets keeps the server
// and warns.
func FuzzSecretPlacement(f *testing.F) {
	f.Add(formSecret, uint8(0), uint8(0), uint8(0))
	f.Add("hunter22hunter", uint8(20), uint8(3), uint8(5))
	f.Add("00000000", uint8(40), uint8(1), uint8(13))
	f.Fuzz(func(t *testing.T, sec string, form, key, pos uint8) {
		// A credential is a run of token characters, a letter or digit
		// among them ("${A}:++++" is references and separators); the
		// forms quote it in JSON, URLs and headers, which other
		// characters would break into something else.
		if len(sec) < 8 || len(sec) > 64 || strings.Trim(sec, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._~+-") != "" ||
			!strings.ContainsAny(sec, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") ||
			slices.Contains([]string{"disabled", "required", "optional", "keychain", "negotiate", "geniekey"}, strings.ToLower(sec)) || strings.HasPrefix(sec, "-") || strings.HasPrefix(sec, ".") || strings.HasPrefix(sec, "~") {
			return
		}
		fm := secretForms[int(form)%len(secretForms)]
		k := secretKeys[int(key)%len(secretKeys)]
		if strings.Contains(strings.Join(fillers, " ")+" srv https://mcp.example.com/mcp "+k+" "+fm.name, sec) {
			return // the secret is text the entry holds anyway
		}
		s := fm.plant(k, sec)
		s.Name = "fz"
		if s.Command != "" {
			at := int(pos) % (len(fillers) + 1)
			s.Args = slices.Concat(fillers[:at], s.Args, fillers[at:])
		}
		kept, problems := ProtectSecrets([]Server{s}, false)
		if where := secretSurvives(sec, kept, problems); where != "" {
			t.Fatalf("%s, key %s: the secret %q survives in %s\nserver: %+v", fm.name, k, sec, where, s)
		}
		if out, _, err := MigrateCodex(nil, CodexInput{Servers: kept}); err == nil && containsSecret(string(out), sec) {
			t.Fatalf("%s, key %s: config.toml holds the secret %q:\n%s", fm.name, k, sec, out)
		}
		kept, problems = ProtectSecrets([]Server{s}, true)
		if len(kept) != 1 || len(problems) == 0 {
			t.Fatalf("%s, key %s: --allow-literal-secrets kept %d servers with warnings %q", fm.name, k, len(kept), problems)
		}
	})
}

// PlantedSecrets is secretForms for the clients' test (package
// configmigrate_test): sec planted in every form under every spelling of
// its name, one server each, with the form and key in its name.
func PlantedSecrets(sec string) []Server {
	var out []Server
	for _, f := range secretForms {
		for i, k := range secretKeys {
			s := f.plant(k, sec)
			s.Name = fmt.Sprintf("%s-%d", f.name, i)
			out = append(out, s)
		}
	}
	return out
}

// FormSecret is formSecret, for the same test.
const FormSecret = formSecret

// longInputs are values that once took 12 s (a pair per reference, each
// re-read from its start) and 80 s (one percent-decoding round per
// character) to judge; a linear pass takes milliseconds.
var longInputs = []string{
	strings.Repeat("a=", 4000), strings.Repeat("token=${A}", 1000), strings.Repeat("{", 8000), strings.Repeat("[", 8000),
	"%" + strings.Repeat("25", 4000), strings.Repeat("key:", 2000), strings.Repeat("u:p@", 2000) + "h.com",
	strings.Repeat(`{"key":`, 1000), strings.Repeat("QUJD", 2000), strings.Repeat(`\"key\":\"`, 1000),
	strings.Repeat("Auth: ", 1000), strings.Repeat("--key ", 1000),
}

// TestLooksLikeSecretOnLongInput judges each long input (the time it takes
// is BenchmarkLooksLikeSecretLongInput's to measure, not a test's).
func TestLooksLikeSecretOnLongInput(t *testing.T) {
	for _, s := range longInputs {
		LooksLikeSecret(s)
	}
}

// BenchmarkLooksLikeSecretLongInput: judging a value takes time roughly
// linear in its length, whatever it repeats (ns/op over all the inputs).
func BenchmarkLooksLikeSecretLongInput(b *testing.B) {
	for b.Loop() {
		for _, s := range longInputs {
			LooksLikeSecret(s)
		}
	}
}

// A long path is not key material, however random its directory names
// (a test's temporary directory, a content-addressed store).
func TestLongPathIsNotAKeyBlob(t *testing.T) {
	for _, p := range []string{
		"/tmp/TestRealClientsResolveMigratedUserServerEnv3292946460/001/home/dump9Xq",
		"/nix/store/8Xq2ZkP0aB7cD9eF1gH3iJ5kL7mN9oP1-Node-22.3.0/bin/node",
	} {
		if LooksLikeSecret(p) {
			t.Errorf("LooksLikeSecret(%q) = true, want a path to pass", p)
		}
	}
	if !LooksLikeSecret("Zx8Qm2Lp9Vt4Rk7Wn3Yb6Hc1Jd5Fg0Sa8Ue2Io4Pq6Lz9Xc3Vb7Nm1Ka5Sd2Fg8Hj4Kl6") {
		t.Error("a 70-character random blob standing alone is not taken for key material")
	}
}
