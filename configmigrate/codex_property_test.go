package configmigrate

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// randomUserTOML builds a valid config.toml the way people write them:
// comments, root keys, multi-line arrays and strings whose lines look like
// headers, tables, array tables, user MCP servers and plugins, sometimes an
// old managed block, CRLF, a BOM, no final newline.
func randomUserTOML(r *rand.Rand) []byte {
	var lines []string
	pick := func(opts ...string) string { return opts[r.IntN(len(opts))] }
	rootKeys := []string{"model", "approval_policy", "sandbox_mode", "model_reasoning_effort", "notify", "profile"}
	r.Shuffle(len(rootKeys), func(i, j int) { rootKeys[i], rootKeys[j] = rootKeys[j], rootKeys[i] })
	// One old block at most, at the top or before the tables; a block
	// without its end marker, or a second one, is refused (see
	// TestMarkerErrors).
	hasBlock := false
	block := func() {
		lines = append(lines, BeginMarker+pickStr(r, "", "  ", "\t"), "", `default_permissions = ":workspace"`, "", "[mcp_servers.hermes-tools]", `command = "/old/python"`, "", EndMarker)
		hasBlock = true
	}
	if r.IntN(4) == 0 {
		block()
	}
	for i := range r.IntN(len(rootKeys)) {
		switch r.IntN(6) {
		case 0:
			lines = append(lines, "# "+pick("note", "[looks like a header]", "default_permissions = x"))
		case 1:
			lines = append(lines, "")
		}
		switch r.IntN(5) {
		case 0:
			lines = append(lines, rootKeys[i]+" = [", `  "[not-a-header]",`, `  ["nested"],`, "]")
		case 1:
			lines = append(lines, rootKeys[i]+` = """`, "[also.not.a.header]", BeginMarker, `"""`)
		case 2:
			lines = append(lines, rootKeys[i]+" = '''", EndMarker, "'''")
		default:
			lines = append(lines, fmt.Sprintf("%s = %q%s", rootKeys[i], pick("gpt-5.5", "on-request", "a # b"), pick("", "  # trailing")))
		}
	}
	dotted := r.IntN(3) == 0
	if dotted {
		lines = append(lines, `mcp_servers.dotted.command = "dotted"`)
	}
	if r.IntN(4) == 0 && len(lines) > 0 && !hasBlock {
		block()
	}
	tables := []string{"[history]\npersistence = \"none\"", "[mcp_servers.user-one]\ncommand = \"u1\"",
		"[plugins.\"github@openai-curated\"]\nenabled = false", "[[skills.config]]\npath = \"/x\"",
		"[profiles.fast]\nmodel = \"m\"", "[mcp_servers]\n", "[projects.\"/p\"]\ntrust_level = \"trusted\"",
		"[permissions.lab]\nextends = \":workspace\""}
	if dotted {
		// TOML forbids a [mcp_servers] header once a dotted key made it.
		tables = tables[:5]
		tables = append(tables, "[projects.\"/p\"]\ntrust_level = \"trusted\"")
	}
	r.Shuffle(len(tables), func(i, j int) { tables[i], tables[j] = tables[j], tables[i] })
	for _, t := range tables[:r.IntN(len(tables))] {
		if r.IntN(2) == 0 {
			lines = append(lines, "")
		}
		if r.IntN(3) == 0 {
			lines = append(lines, "# about the next table")
		}
		lines = append(lines, strings.Split(t, "\n")...)
	}
	nl := "\n"
	if r.IntN(5) == 0 {
		nl = "\r\n"
	}
	text := strings.Join(lines, nl)
	if r.IntN(4) != 0 && text != "" {
		text += nl
	}
	if r.IntN(8) == 0 {
		text = "\xef\xbb\xbf" + text
	}
	return []byte(text)
}

func randomInput(r *rand.Rand) CodexInput {
	in := CodexInput{}
	if r.IntN(3) != 0 {
		in.DefaultPermissions = DefaultPermissions
	}
	if r.IntN(3) != 0 {
		s := HermesToolsServer(HermesToolsOptions{Command: "/bin/hermes-tools-mcp", HermesHome: "/h", EnvVars: []string{"A", "B"}, Approve: r.IntN(2) == 0})
		in.HermesTools = &s
	}
	names := []string{"user-one", "dotted", "fresh", "web", "with space", `q"uote`}
	for _, n := range names[:r.IntN(len(names))] {
		s := Server{Name: n}
		if r.IntN(2) == 0 {
			s.Command = "cmd-" + n
			s.Env = []KeyValue{{Key: "TOKEN", Value: ParseValue(pickStr(r, "${TOKEN}", "lit\\eral", "${OTHER}"))}}
		} else {
			s.URL = "https://example.com/" + n
			s.Headers = []KeyValue{{Key: "Authorization", Value: ParseValue("Bearer ${T}")}}
		}
		in.Servers = append(in.Servers, s)
	}
	for _, p := range []string{"github", "linear", "figma"}[:r.IntN(4)] {
		in.Plugins = append(in.Plugins, Plugin{Name: p, Marketplace: pickStr(r, "", "openai-curated", "lab"), Enabled: r.IntN(2) == 0})
	}
	return in
}

func pickStr(r *rand.Rand, opts ...string) string { return opts[r.IntN(len(opts))] }

// TestCodexMigrationProperties: for random user files around random Hermes
// configs, the output parses, the user's bytes are unchanged, and a second
// run is byte-identical.
func TestCodexMigrationProperties(t *testing.T) {
	for seed := range uint64(3000) {
		checkSeed(t, seed)
		if t.Failed() {
			return
		}
	}
}

func FuzzCodexMigration(f *testing.F) {
	for _, s := range []uint64{1, 2, 3, 42, 1 << 40} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seed uint64) { checkSeed(t, seed) })
}

func checkSeed(t *testing.T, seed uint64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	existing := randomUserTOML(r)
	in := randomInput(r)
	if doc, err := splitDocument(existing); err != nil {
		t.Fatalf("seed %d: generator made broken markers: %v\n%s", seed, err, existing)
	} else if _, err := parseTOML(doc.user); err != nil {
		t.Fatalf("seed %d: generator made invalid TOML: %v\n%s", seed, err, existing)
	}
	out, _, err := MigrateCodex(existing, in)
	if err != nil {
		t.Fatalf("seed %d: %v\n--- input\n%s", seed, err, existing)
	}
	checkCodexInvariants(t, existing, out, in)
	if t.Failed() {
		t.Logf("seed %d input:\n%s", seed, existing)
	}
}
