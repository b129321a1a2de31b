package clientsync

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/configmigrate"
)

// randomYAML writes a Goose-style config.yaml as people and Goose write
// them: comments, blank lines, nested maps, lists, block scalars, and an
// extensions mapping that is missing, null, {}, or holds user entries.
func randomYAML(r *rand.Rand) []byte {
	nl := "\n"
	if r.IntN(4) == 0 {
		nl = "\r\n"
	}
	unit := []string{"  ", "    "}[r.IntN(2)]
	var b strings.Builder
	line := func(s string) { b.WriteString(s + nl) }
	scalars := []string{"gpt-4o", "\"quoted: yes\"", "'single'", "42", "true", "null", "~/path", "x # comment"}
	top := func(i int) {
		switch r.IntN(6) {
		case 0:
			line(fmt.Sprintf("KEY_%d: %s", i, scalars[r.IntN(len(scalars))]))
		case 1:
			line(fmt.Sprintf("map_%d:", i))
			line(unit + "a: 1")
			line(unit + "b:")
			line(unit + unit + "- x")
		case 2:
			line(fmt.Sprintf("list_%d:", i))
			line("- one")
			line("- two: 2")
		case 3:
			line(fmt.Sprintf("text_%d: |", i))
			line(unit + "extensions:")
			line(unit + "  not: a key")
		case 4:
			line("# a comment")
		default:
			line("")
		}
	}
	for i := range r.IntN(4) {
		top(i)
	}
	switch r.IntN(5) {
	case 0: // no extensions
	case 1:
		line("extensions:")
	case 2:
		line("extensions: {}")
	default:
		line("extensions:")
		for i := range 1 + r.IntN(3) {
			if r.IntN(3) == 0 {
				line(unit + "# about user-" + fmt.Sprint(i))
			}
			line(fmt.Sprintf("%suser-%d:", unit, i))
			line(unit + unit + "name: user-" + fmt.Sprint(i))
			line(unit + unit + "cmd: u")
			line(unit + unit + "args:")
			line(unit + unit + "- -v")
			if r.IntN(3) == 0 {
				line("")
			}
		}
		if r.IntN(3) == 0 {
			line(unit + "# trailing")
		}
	}
	for i := range r.IntN(3) {
		top(10 + i)
	}
	out := b.String()
	if r.IntN(4) == 0 {
		out = strings.TrimSuffix(out, nl)
	}
	return []byte(out)
}

// randomTOML writes a codex-style config.toml: root keys, tables,
// subtables, arrays of tables, comments, and user servers with subtables.
func randomTOML(r *rand.Rand) []byte {
	nl := "\n"
	if r.IntN(4) == 0 {
		nl = "\r\n"
	}
	var b strings.Builder
	line := func(s string) { b.WriteString(s + nl) }
	for i := range r.IntN(3) {
		line(fmt.Sprintf("key_%d = %q", i, []string{"v", "# not a comment", "[not.a.table]"}[r.IntN(3)]))
	}
	if r.IntN(3) == 0 {
		line("# settings")
	}
	blocks := r.Perm(4)
	for _, k := range blocks {
		switch k {
		case 0:
			line("")
			line("[ui]")
			line("theme = \"dark\" # comment")
		case 1:
			for i := range r.IntN(3) {
				line("")
				line(fmt.Sprintf("[mcp_servers.user-%d]", i))
				line("command = \"u\"")
				if r.IntN(2) == 0 {
					line(fmt.Sprintf("[mcp_servers.user-%d.env]", i))
					line("A = \"1\"")
				}
			}
		case 2:
			if r.IntN(2) == 0 {
				line("")
				line("[[profiles]]")
				line("name = \"p\"")
			}
		case 3:
			if r.IntN(3) == 0 {
				line("")
				line("[mcp_servers]")
			}
		}
	}
	out := b.String()
	if r.IntN(4) == 0 {
		out = strings.TrimSuffix(out, nl)
	}
	return []byte(out)
}

// gooseAfterRemove is what removing Hermes' entries leaves of in: in
// itself, except that an "extensions" mapping Hermes had to create, or
// that was null, is left as "extensions: {}", as "mcpServers": {} stays
// in JSON.
func gooseAfterRemove(t *testing.T, in []byte) []byte {
	st, err := openYAML(dialects[Goose], in)
	if err != nil {
		t.Fatal(err)
	}
	y, _ := st.(*yamlStore).parse()
	nl := detectNewline(in)
	switch {
	case y.val == nil:
		out := string(in)
		switch {
		case len(in) == 0:
			return []byte("extensions: {}" + nl)
		case strings.HasSuffix(out, "\n"):
			return []byte(out + "extensions: {}" + nl)
		default:
			return []byte(out + nl + "extensions: {}")
		}
	case y.val.Tag == "!!null":
		l := indexLines(in)
		text := l.text(y.key.Line - 1)
		if strings.Contains(text, "#") {
			return in
		}
		at := l.start[y.key.Line-1] + len(strings.TrimRight(text, " \t"))
		return splice(in, at, at, " {}")
	}
	return in
}

// checkTextProperties: bytes outside Hermes' entries are unchanged (the
// removal gives the input back), the user's entries read the same,
// re-applying is a no-op, and the result parses.
func checkTextProperties(t *testing.T, c Client, in []byte, servers []configmigrate.Server) {
	t.Helper()
	var names []string
	for _, s := range servers {
		names = append(names, s.Name)
	}
	res, err := Apply(c, in, servers, Options{})
	if err != nil {
		t.Fatalf("Apply: %v\ninput:\n%s", err, in)
	}
	st, err := open(dialects[c], res.Output)
	if err != nil {
		t.Fatalf("output does not parse: %v\n%s", err, res.Output)
	}
	before, _ := open(dialects[c], in)
	userNames, _ := before.names()
	for _, n := range userNames {
		a, _, _ := before.lookup(n)
		b, _, _ := st.lookup(n)
		if !bytes.Equal(a, b) {
			t.Fatalf("user entry %s changed: %s -> %s\n%s", n, a, b, res.Output)
		}
	}
	again, err := Apply(c, res.Output, servers, Options{Owned: names})
	if err != nil || again.Changed {
		t.Fatalf("second apply changed the file (%v):\n%s\n->\n%s", err, res.Output, again.Output)
	}
	rm, err := Remove(c, res.Output, names)
	if err != nil {
		t.Fatalf("Remove: %v", err)
	}
	want, got := in, rm.Output
	if c == Goose && len(res.Written) > 0 {
		want = gooseAfterRemove(t, in)
	}
	if !bytes.Equal(want, got) {
		t.Fatalf("remove did not restore the input:\n--- input\n%q\n--- after apply\n%q\n--- after remove\n%q", in, res.Output, rm.Output)
	}
}

func TestPropertyTextFormats(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 2))
	pool := []string{configmigrate.HermesToolsName, "github", "linear", "legacy"}
	for i := range 400 {
		c, in := Goose, randomYAML(r)
		if i%2 == 1 {
			c, in = GrokBuild, randomTOML(r)
		}
		var servers []configmigrate.Server
		for _, n := range pool {
			if r.IntN(2) == 0 {
				servers = append(servers, fixtureServers[n])
			}
		}
		t.Run(fmt.Sprint(i), func(t *testing.T) { checkTextProperties(t, c, in, servers) })
	}
}

// FuzzApplyText: for any YAML or TOML input the editors accept, the
// properties hold.
func FuzzApplyText(f *testing.F) {
	r := rand.New(rand.NewPCG(7, 7))
	for range 10 {
		f.Add(randomYAML(r), false)
		f.Add(randomTOML(r), true)
	}
	servers := []configmigrate.Server{fixtureServers[configmigrate.HermesToolsName], fixtureServers["linear"]}
	f.Fuzz(func(t *testing.T, in []byte, toml bool) {
		c := Goose
		if toml {
			c = GrokBuild
		}
		if _, err := open(dialects[c], in); err != nil {
			return
		}
		if _, err := Apply(c, in, servers, Options{}); err != nil {
			return // refused with a reason (flow style, inline tables)
		}
		checkTextProperties(t, c, in, servers)
	})
}
