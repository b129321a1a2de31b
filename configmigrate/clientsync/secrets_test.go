package clientsync

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/configmigrate"
)

// TestNoClientGetsALiteralSecret is the secrets rule, for every client:
// whatever config.yaml holds, after configmigrate.ProtectSecrets (what
// Job does) no literal secret reaches the client's file, in any field,
// for random keys, values and positions.
func TestNoClientGetsALiteralSecret(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 1))
	secretKeys := []string{"FETCH_API_KEY", "GITHUB_TOKEN", "PASSWORD", "CLIENT_SECRET", "Authorization", "X-Api-Key", "db-password",
		// The credential word inside the name.
		"ACCESS_TOKEN_VALUE", "DB_PASS_PHRASE", "accessTokenRaw", "X-Auth-Token-Value", "SIGNING_KEY_V2"}
	secretFlags := []string{"--api-key", "--apikey", "--apiKey", "--token", "-token", "--access-token", "--secret", "--client-secret", "--password", "--passwd", "--pass"}
	schemes := []string{"https", "http", "wss", "ftp", "redis", "amqp", "git+ssh", "custom-x"}
	plainKeys := []string{"LOG_LEVEL", "REGION", "Accept", "MODE"}
	body := func() string {
		const alpha = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
		b := make([]byte, 20+r.IntN(20))
		for i := range b {
			b[i] = alpha[r.IntN(len(alpha))]
		}
		return string(b)
	}
	for i := range 300 {
		var secrets []string
		// A credential of a known shape, anywhere; or any value under a
		// key named like a secret.
		shaped := func() string {
			b := body()
			secrets = append(secrets, b)
			return []string{"sk-", "ghp_", "xoxb-", "hf_", "Bearer ", "--api-key="}[r.IntN(6)] + b
		}
		named := func() string {
			b := body()
			secrets = append(secrets, b)
			return b
		}
		// A password in the userinfo of a URL of any scheme.
		userinfo := func() string {
			return schemes[r.IntN(len(schemes))] + "://user:" + named() + "@upstream.example.com/x"
		}
		// A reference whose default is a secret, by its shape or by
		// the name it stands under.
		defaulted := func(v string) string { return fmt.Sprintf("${V%d:-%s}", r.IntN(100), v) }
		pairs := func() []configmigrate.KeyValue {
			var kvs []configmigrate.KeyValue
			for j := range 1 + r.IntN(4) {
				secretKey := fmt.Sprintf("K%d_%s", j, secretKeys[r.IntN(len(secretKeys))])
				plainKey := fmt.Sprintf("K%d_%s", j, plainKeys[r.IntN(len(plainKeys))])
				switch r.IntN(7) {
				case 0:
					kvs = append(kvs, kv(secretKey, lit(named())))
				case 1:
					kvs = append(kvs, kv(plainKey, lit(shaped())))
				case 2:
					kvs = append(kvs, kv(plainKey, lit(userinfo())))
				case 3:
					kvs = append(kvs, kv(secretKey, configmigrate.ParseValue(defaulted(named()))))
				case 4:
					kvs = append(kvs, kv(plainKey, configmigrate.ParseValue(defaulted(shaped()))))
				case 5:
					kvs = append(kvs, kv(secretKey, configmigrate.ParseValue("Bearer "+defaulted(named()))))
				default:
					kvs = append(kvs, kv(plainKey, lit("plain")))
				}
			}
			return kvs
		}
		var s configServer
		if r.IntN(2) == 0 {
			s = configServer{Name: "local", Command: "/bin/srv", Env: pairs()}
			switch r.IntN(6) {
			case 0:
				s.Args = []string{"-v", shaped()}
			case 1:
				// The value after a flag that names a secret.
				s.Args = []string{"s.js", "-p", "8080", secretFlags[r.IntN(len(secretFlags))], named()}
			case 2:
				s.Args = []string{"--upstream", userinfo()}
			case 3:
				s.Args = []string{secretFlags[r.IntN(len(secretFlags))], defaulted(named()), "--level=" + defaulted("info")}
			case 4:
				// A header as one argument (mcp-remote --header).
				s.Args = []string{"https://mcp.example.com/mcp", "--header", secretKeys[r.IntN(len(secretKeys))] + ": " + named()}
			}
		} else {
			s = configServer{Name: "remote", URL: "https://mcp.example.com/mcp", Headers: pairs()}
			switch r.IntN(4) {
			case 0:
				s.URL += "?key=" + shaped()
			case 1:
				s.URL = "https://admin:" + named() + "@mcp.example.com/mcp"
			case 2:
				s.URL = "https://admin:" + defaulted(named()) + "@mcp.example.com/mcp"
			}
		}
		servers, _ := configmigrate.ProtectSecrets([]configServer{s}, false)
		for _, c := range entryClients() {
			for _, existing := range [][]byte{nil, []byte(userDoc(c, "x", "y"))} {
				res, err := Apply(c, existing, servers, Options{})
				if err != nil {
					t.Fatalf("case %d, %s: %v", i, c, err)
				}
				out := string(res.Output) + strings.Join(res.Notes, "\n")
				for _, sec := range secrets {
					if strings.Contains(out, sec) {
						t.Fatalf("case %d: %s's file or notes hold the secret %q:\n%s\nserver: %+v", i, c, sec, out, s)
					}
				}
			}
		}
	}
}

// TestSecretBecomesReference: the literal is replaced by a reference in
// the client's own syntax, or left for the user to fill in where the
// client expands none; the note names the variable to set, or the field
// to fill in by hand, never both.
func TestSecretBecomesReference(t *testing.T) {
	const key = "sk-live-4f9a8b7c6d5e4f3a2b1c"
	servers, _ := configmigrate.ProtectSecrets([]configServer{{
		Name: "fetch", Command: "/bin/fetch-mcp",
		Env: []configmigrate.KeyValue{kv("FETCH_API_KEY", lit(key))},
	}}, false)
	for _, c := range entryClients() {
		d := dialects[c]
		res, err := Apply(c, nil, servers, Options{})
		if err != nil {
			t.Fatal(err)
		}
		notes := strings.Join(res.Notes, "\n")
		switch {
		case strings.Contains(string(res.Output), key):
			t.Errorf("%s: the secret was written", c)
		case d.ref != nil && !strings.Contains(string(res.Output), `"FETCH_API_KEY": "`+d.ref("FETCH_API_KEY")+`"`):
			t.Errorf("%s: no %s reference in\n%s", c, d.refSyntax, res.Output)
		case d.nameKeys != "" && !strings.Contains(string(res.Output), d.nameKeys+":\n      - FETCH_API_KEY\n"):
			t.Errorf("%s: FETCH_API_KEY not passed by name in\n%s", c, res.Output)
		case d.ref == nil && d.inheritsEnv:
			if !strings.Contains(notes, "gets FETCH_API_KEY from the environment") || strings.Contains(string(res.Output), "FETCH_API_KEY") {
				t.Errorf("%s: hands a server its own environment, yet FETCH_API_KEY is written, or the note does not say where it comes from:\n%s\n%s", c, res.Output, notes)
			}
		case d.ref == nil && d.nameKeys == "" && !strings.Contains(notes, "env FETCH_API_KEY not written"):
			t.Errorf("%s: no note asking to fill FETCH_API_KEY in by hand:\n%s", c, notes)
		case d.ref == nil && d.nameKeys == "" && strings.Contains(notes, "reads $FETCH_API_KEY"):
			// The by-hand note is the one to follow there.
			t.Errorf("%s: told the entry reads $FETCH_API_KEY, which it cannot:\n%s", c, notes)
		case (d.ref != nil || d.nameKeys != "") && !strings.Contains(notes, "set FETCH_API_KEY"):
			t.Errorf("%s: notes do not name the variable to set:\n%s", c, notes)
		}
	}
}
