package clientsync

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/hermes-go/hermes/configmigrate"
	"github.com/hermes-go/hermes/internal/testkit/golden"
)

// docGen writes random JSON(C) documents in one consistent random style,
// the way an editor or a person would format a config file.
type docGen struct {
	r        *rand.Rand
	nl, unit string
	inline   bool // the whole file on one line
	tight    bool // minified: no blanks after ':' and ','
	jsonc    bool // comments and trailing commas allowed
	keyN     int
}

func newDocGen(r *rand.Rand) *docGen {
	g := &docGen{r: r, nl: "\n", unit: []string{"  ", "    ", "\t"}[r.IntN(3)]}
	if r.IntN(4) == 0 {
		g.nl = "\r\n"
	}
	g.inline = r.IntN(5) == 0
	g.tight = g.inline && r.IntN(2) == 0
	g.jsonc = r.IntN(2) == 0
	return g
}

var genStrings = []string{"", "a", "http://x//y", "/* no */", `q"uote`, `back\slash`, "ünï©ødé", "tab\t", "${NOT_A_REF}", "{}", "[", "日本"}

func (g *docGen) str() string {
	if g.r.IntN(3) == 0 {
		return genStrings[g.r.IntN(len(genStrings))]
	}
	return fmt.Sprintf("s%d", g.r.IntN(1000))
}

func (g *docGen) key() string {
	g.keyN++
	return fmt.Sprintf("%s%d", []string{"k", "projects", "theme", "a//b", "é"}[g.r.IntN(5)], g.keyN)
}

func (g *docGen) comment(b *strings.Builder) {
	if g.jsonc && g.r.IntN(4) == 0 {
		b.WriteString("/* c */ ")
	}
}

func (g *docGen) value(b *strings.Builder, indent string, depth int) {
	switch n := g.r.IntN(8); {
	case depth < 3 && n == 0:
		g.object(b, indent, depth+1, g.r.IntN(4), nil)
	case depth < 3 && n == 1:
		g.array(b, indent, depth+1)
	case n == 2:
		b.WriteString([]string{"true", "false", "null"}[g.r.IntN(3)])
	case n == 3:
		b.WriteString([]string{"0", "-1.5", "2e10", "42"}[g.r.IntN(4)])
	default:
		b.WriteString(quote(g.str()))
	}
}

func (g *docGen) array(b *strings.Builder, indent string, depth int) {
	n := g.r.IntN(4)
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteString(g.sep())
		}
		g.value(b, indent, depth)
	}
	if n > 0 && g.jsonc && g.r.IntN(3) == 0 {
		b.WriteByte(',')
	}
	b.WriteByte(']')
}

func (g *docGen) sep() string {
	if g.tight {
		return ","
	}
	return ", "
}

func (g *docGen) colon() string {
	if g.tight {
		return ":"
	}
	return ": "
}

// object writes n random members; fixed members (name, raw value) are
// placed at random positions among them.
func (g *docGen) object(b *strings.Builder, indent string, depth, n int, fixed []field) {
	type mem struct{ key, raw string }
	var ms []mem
	for range n {
		var vb strings.Builder
		g.value(&vb, indent+g.unit, depth)
		ms = append(ms, mem{g.key(), vb.String()})
	}
	for _, f := range fixed {
		i := g.r.IntN(len(ms) + 1)
		ms = append(ms[:i], append([]mem{{f.key, f.val.(string)}}, ms[i:]...)...)
	}
	if len(ms) == 0 {
		b.WriteString("{}")
		return
	}
	// Nested objects are mostly written on one line, as formatters
	// often leave small ones.
	multi := !g.inline && (depth <= 1 || g.r.IntN(3) == 0)
	trailing := g.jsonc && g.r.IntN(3) == 0
	inner := indent + g.unit
	b.WriteByte('{')
	for i, m := range ms {
		if multi {
			b.WriteString(g.nl)
			if g.jsonc && g.r.IntN(5) == 0 {
				b.WriteString(inner + "// about " + m.key + g.nl)
			}
			b.WriteString(inner)
		} else if i > 0 && !g.tight {
			b.WriteByte(' ')
		}
		b.WriteString(quote(m.key) + g.colon())
		g.comment(b)
		b.WriteString(m.raw)
		if i < len(ms)-1 || trailing {
			b.WriteByte(',')
		}
		if multi && g.jsonc && g.r.IntN(5) == 0 {
			b.WriteString(" // after")
		}
	}
	if multi {
		b.WriteString(g.nl + indent)
	}
	b.WriteByte('}')
}

// doc writes a root object, with a servers object holding userServers
// (raw JSON by name) unless container is false.
func (g *docGen) doc(rootKey string, container bool, userServers []field) []byte {
	var b strings.Builder
	if g.r.IntN(6) == 0 {
		b.WriteString("\uFEFF")
	}
	if g.jsonc && g.r.IntN(3) == 0 {
		b.WriteString("// settings" + g.nl)
	}
	var fixed []field
	if container {
		var cb strings.Builder
		g.object(&cb, g.unit, 1, 0, userServers)
		fixed = append(fixed, field{rootKey, cb.String()})
	}
	g.object(&b, "", 0, g.r.IntN(5), fixed)
	if g.r.IntN(4) != 0 {
		b.WriteString(g.nl)
	}
	return []byte(b.String())
}

func (g *docGen) server(name string) configServer {
	s := configServer{Name: name}
	val := func() configmigrate.Value {
		switch g.r.IntN(4) {
		case 0:
			return configmigrate.Value{Ref: "VAR_" + name}
		case 1:
			return configmigrate.ParseValue("Bearer ${TOKEN}")
		default:
			return lit(g.str())
		}
	}
	if g.r.IntN(3) == 0 {
		s.URL = "https://example.com/" + name
		s.SSE = g.r.IntN(3) == 0
		for i := range g.r.IntN(3) {
			name := fmt.Sprintf("H%d", i)
			if g.r.IntN(3) == 0 {
				name = []string{"Authorization", "authorization"}[g.r.IntN(2)]
			}
			s.Headers = append(s.Headers, kv(name, val()))
		}
	} else {
		s.Command = "/bin/" + name
		for range g.r.IntN(4) {
			s.Args = append(s.Args, g.str())
		}
		for i := range g.r.IntN(3) {
			s.Env = append(s.Env, kv(fmt.Sprintf("E%d", i), val()))
		}
		if g.r.IntN(3) == 0 {
			s.EnvVars = []string{"PASS_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))}
		}
		if g.r.IntN(3) == 0 {
			s.Cwd = "/w/" + name
		}
	}
	if g.r.IntN(3) == 0 {
		s.ToolTimeoutSec = float64(g.r.IntN(600))
	}
	s.Disabled = g.r.IntN(10) == 0
	return s
}

// TestPropertyRandomDocs applies random servers to random documents in
// every client and checks the promises of Apply and Remove.
func TestPropertyRandomDocs(t *testing.T) {
	iterations := 3000
	if testing.Short() {
		iterations = 300
	}
	for i := range iterations {
		r := rand.New(rand.NewPCG(uint64(i), 0x5eed))
		g := newDocGen(r)
		client := jsonClients()[r.IntN(len(jsonClients()))]
		d := dialects[client]

		// Servers: always hermes-tools, plus a few of our own; some of
		// their names may already be in the file.
		servers := []configServer{toolsServer}
		for j := range r.IntN(4) {
			servers = append(servers, g.server(fmt.Sprintf("srv-%d", j)))
		}
		container := r.IntN(4) != 0
		var user []field
		for j := range r.IntN(4) {
			user = append(user, field{fmt.Sprintf("user-%d", j), `{"command": "u"}`})
		}
		if container && r.IntN(2) == 0 {
			// A clash with one of the names we manage.
			name := servers[r.IntN(len(servers))].Name
			user = append(user, field{name, `{"command": "someone else's", "args": []}`})
		}
		opts := Options{Overwrite: r.IntN(4) == 0}
		if r.IntN(2) == 0 {
			for _, s := range servers {
				opts.Owned = append(opts.Owned, s.Name)
			}
		}
		in := g.doc(d.rootKey, container, user)

		t.Run(fmt.Sprintf("%d", i), func(t *testing.T) {
			checkProperties(t, client, in, servers, opts, container)
		})
		if t.Failed() {
			t.Logf("input (%s):\n%s", client, in)
			return
		}
	}
}

func checkProperties(t *testing.T, client Client, in []byte, servers []configServer, opts Options, hadContainer bool) {
	t.Helper()
	d := dialects[client]
	orig := bytes.Clone(in)
	res, err := Apply(client, in, servers, opts)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if !bytes.Equal(in, orig) {
		t.Fatal("Apply modified the caller's input slice")
	}
	out := res.Output

	// 1. The output is valid and plain JSON once comments go.
	std, err := Standardize(out)
	if err != nil {
		t.Fatalf("output does not parse: %v\n%s", err, out)
	}
	var got map[string]any
	if err := json.Unmarshal(std, &got); err != nil {
		t.Fatalf("encoding/json rejects the output: %v\n%s", err, out)
	}

	// 2. It means the input plus exactly our entries.
	want := decode(t, in)
	if want == nil {
		want = map[string]any{}
	}
	cont, _ := want[d.rootKey].(map[string]any)
	if cont == nil && len(res.Written) > 0 {
		cont = map[string]any{}
		want[d.rootKey] = cont
	}
	for _, s := range servers {
		if slices.Contains(res.Written, s.Name) {
			tr := translate(d, s)
			if old, ok := cont[s.Name]; ok {
				raw, _ := json.Marshal(old)
				tr.keepHand(d, raw, nil)
			}
			var v any
			if err := json.Unmarshal([]byte(render(tr.entry, layout{inline: true})), &v); err != nil {
				t.Fatal(err)
			}
			cont[s.Name] = v
		}
		if slices.Contains(res.Removed, s.Name) {
			delete(cont, s.Name)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("output means something else\n got %v\nwant %v\n%s", got, want, out)
	}

	// 3. Every byte outside our members is the input's: taking the
	// members out of input and output gives the same text.
	var names []string
	for _, s := range servers {
		names = append(names, s.Name)
	}
	rmOut, err := Remove(client, out, names)
	if err != nil {
		t.Fatalf("Remove on the output: %v", err)
	}
	rmIn, err := Remove(client, in, names)
	if err != nil {
		t.Fatalf("Remove on the input: %v", err)
	}
	rest, wantRest := rmOut.Output, rmIn.Output
	if !hadContainer && len(res.Written) > 0 {
		rest = dropMember(t, rest, d.rootKey)
		if doc, _ := parse(in); doc.root == nil {
			// A file without a value got "{}" appended; the rest of
			// it (comments, a BOM) must still be there.
			ed, err := newEditor(in, d.rootKey)
			if err != nil {
				t.Fatal(err)
			}
			if err := ed.ensureRoot(); err != nil {
				t.Fatal(err)
			}
			wantRest = ed.src
		}
	}
	// Removing the last member leaves {} however blank the object was
	// before (see collapse), so blank empty objects compare as {}.
	rest, wantRest = collapseBlank(t, rest, d.rootKey), collapseBlank(t, wantRest, d.rootKey)
	if !bytes.Equal(rest, wantRest) {
		t.Fatalf("bytes outside our members changed\n--- input without ours\n%s\n--- output without ours\n%s\n--- output\n%s", wantRest, rest, out)
	}

	// 4. A second run is a no-op.
	again, err := Apply(client, out, servers, opts)
	if err != nil {
		t.Fatalf("second Apply: %v", err)
	}
	if again.Changed || !bytes.Equal(again.Output, out) {
		t.Fatalf("second Apply changed the file\n--- first\n%s\n--- second\n%s", out, again.Output)
	}
}

// dropMember removes a root member the way Remove removes a server, to
// take out the servers object Apply created.
func dropMember(t *testing.T, src []byte, key string) []byte {
	t.Helper()
	ed, err := newEditor(src, key)
	if err != nil {
		t.Fatal(err)
	}
	idx, _ := ed.doc.root.find(key)
	if idx < 0 {
		t.Fatalf("no %q member to drop in\n%s", key, src)
	}
	if err := ed.apply(ed.remove(ed.doc.root, idx)); err != nil {
		t.Fatal(err)
	}
	if edits := ed.collapse(ed.doc.root); edits != nil {
		if err := ed.apply(edits); err != nil {
			t.Fatal(err)
		}
	}
	return ed.src
}

// collapseBlank rewrites a root or servers object holding only blank
// space as {}.
func collapseBlank(t *testing.T, src []byte, key string) []byte {
	t.Helper()
	ed, err := newEditor(src, key)
	if err != nil {
		t.Fatal(err)
	}
	if cont, _ := ed.container(); cont != nil {
		if edits := ed.collapse(cont); edits != nil {
			if err := ed.apply(edits); err != nil {
				t.Fatal(err)
			}
		}
	}
	if root := ed.doc.root; root != nil && root.kind == kindObject {
		if edits := ed.collapse(root); edits != nil {
			if err := ed.apply(edits); err != nil {
				t.Fatal(err)
			}
		}
	}
	return ed.src
}

func decode(t *testing.T, src []byte) map[string]any {
	t.Helper()
	std, err := Standardize(src)
	if err != nil {
		t.Fatalf("input does not parse: %v\n%s", err, src)
	}
	if len(bytes.TrimSpace(std)) == 0 {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(std, &m); err != nil {
		t.Fatalf("input: %v\n%s", err, std)
	}
	return m
}

// TestHandFilledValuesSurvive: whatever env variable or header a sync
// asks the user to fill in by hand (the client cannot reference it), a
// later sync of the same servers keeps the value the user put there, under
// the user's spelling of a header name, in every JSON client.
func TestHandFilledValuesSurvive(t *testing.T) {
	// What a sync asks for, from its report: "srv: env A, B not written:
	// ... add them to the entry by hand".
	askedRE := regexp.MustCompile(`^(\S+): (env|headers) ([^:]+) not written: .*add them to the entry by hand`)
	checked := 0
	for i := range 400 {
		r := rand.New(rand.NewPCG(uint64(i), 0x4a4d))
		g := newDocGen(r)
		client := jsonClients()[r.IntN(len(jsonClients()))]
		d := dialects[client]
		servers := []configServer{toolsServer, fixtureServers["github"], fixtureServers["linear"]}
		for j := range r.IntN(3) {
			servers = append(servers, g.server(fmt.Sprintf("srv-%d", j)))
		}
		var owned []string
		for _, s := range servers {
			owned = append(owned, s.Name)
		}
		first, err := Apply(client, nil, servers, Options{Owned: owned})
		if err != nil {
			t.Fatalf("%s: first Apply: %v", client, err)
		}
		// The user fills in what the first sync asked for.
		doc := decode(t, first.Output)
		cont, _ := doc[d.rootKey].(map[string]any)
		want := map[string]map[string]string{} // server -> "env NAME" / "header name" -> value
		for _, s := range servers {
			entry, ok := cont[s.Name].(map[string]any)
			if !ok {
				continue
			}
			asked := map[string][]string{}
			for _, n := range first.Notes {
				if m := askedRE.FindStringSubmatch(n); m != nil && m[1] == s.Name {
					asked[m[2]] = append(asked[m[2]], strings.Split(m[3], ", ")...)
				}
			}
			fill := func(obj, kind string, names []string) {
				m, _ := entry[obj].(map[string]any)
				if m == nil {
					m = map[string]any{}
					entry[obj] = m
				}
				for _, n := range names {
					if kind == "header" && r.IntN(2) == 0 {
						n = strings.ToLower(n)
					}
					v := fmt.Sprintf("hand-%s-%d", s.Name, r.IntN(1000))
					m[n] = v
					if want[s.Name] == nil {
						want[s.Name] = map[string]string{}
					}
					want[s.Name][kind+" "+n] = v
				}
			}
			// No header is lost without a word: each is written, taken
			// as the Bearer variable, asked for by hand, or a duplicate.
			written, _ := entry["headers"].(map[string]any)
			for _, h := range s.Headers {
				ok := slices.ContainsFunc(asked["headers"], func(a string) bool { return strings.EqualFold(a, h.Key) })
				for k := range written {
					ok = ok || strings.EqualFold(k, h.Key)
				}
				ok = ok || strings.EqualFold(h.Key, "Authorization") && d.bearerKey != "" && entry[d.bearerKey] != nil
				if !ok && !s.Disabled {
					t.Fatalf("%s %s: header %s is neither written nor asked for\nnotes: %q\n%s", client, s.Name, h.Key, first.Notes, first.Output)
				}
			}
			fill(d.envKey, "env", asked["env"])
			fill("headers", "header", asked["headers"])
		}
		filled, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		second, err := Apply(client, filled, servers, Options{Owned: owned})
		if err != nil {
			t.Fatalf("%s: second Apply: %v", client, err)
		}
		got, _ := decode(t, second.Output)[d.rootKey].(map[string]any)
		for name, vals := range want {
			entry, _ := got[name].(map[string]any)
			for key, v := range vals {
				kind, n, _ := strings.Cut(key, " ")
				obj := d.envKey
				if kind == "header" {
					obj = "headers"
				}
				m, _ := entry[obj].(map[string]any)
				checked++
				if m[n] != v {
					t.Fatalf("%s %s: %s %s filled in by hand as %q came back as %v after a sync\n%s", client, name, kind, n, v, m[n], second.Output)
				}
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d values were filled in by hand and checked; the generator no longer exercises the rule", checked)
	}
}

// FuzzApply feeds arbitrary bytes as the existing file. Whatever Apply
// accepts must keep every property; whatever it rejects must be a
// syntax or shape error with no output.
func FuzzApply(f *testing.F) {
	files, _ := filepath.Glob("testdata/golden/*/*.txtar")
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			f.Fatal(err)
		}
		if in, ok := golden.Section(ar, "input"); ok {
			f.Add(in, uint8(0))
		}
	}
	f.Add([]byte("{\"mcpServers\":{\"a\":1,}}"), uint8(3))
	f.Add([]byte("\uFEFF{\r\n}"), uint8(4))
	f.Fuzz(func(t *testing.T, in []byte, pick uint8) {
		client := jsonClients()[int(pick)%len(jsonClients())]
		servers := []configServer{toolsServer, fixtureServers["github"], fixtureServers["linear"]}
		if _, err := parse(in); err != nil {
			if res, err := Apply(client, in, servers, Options{}); err == nil || res.Output != nil {
				t.Fatalf("unparsable input accepted: %v", err)
			}
			return
		}
		ed, err := newEditor(in, dialects[client].rootKey)
		if err != nil {
			// Valid JSON of the wrong shape (an array, a servers
			// member that is not an object) is refused.
			if _, err := Apply(client, in, servers, Options{}); err == nil {
				t.Fatal("Apply accepted what the editor refuses")
			}
			return
		}
		cont, _ := ed.container()
		if _, err := Apply(client, in, servers, Options{}); err != nil {
			// Duplicate server names are refused too.
			return
		}
		checkProperties(t, client, in, servers, Options{}, cont != nil)
	})
}

// FuzzParse checks the scanner against encoding/json: plain JSON that
// encoding/json accepts parses, and whatever parses is plain JSON once
// standardized.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"a": [1, 2, {"b": null}]}`, `"x"`, `{"a": 1,}`, "// c\n{}", `[1e5, -0.5]`, `{"\u00e9": "\\"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		_, err := parse(in)
		if err == nil {
			std, err := Standardize(in)
			if err != nil {
				t.Fatal(err)
			}
			if len(bytes.TrimSpace(std)) > 0 && !json.Valid(std) {
				t.Fatalf("parsed, but the standard form is not JSON: %q", std)
			}
			return
		}
		if json.Valid(in) && !bytes.HasPrefix(in, []byte("\uFEFF")) && bytes.Count(in, []byte("["))+
			bytes.Count(in, []byte("{")) <= maxDepth {
			t.Fatalf("encoding/json accepts %q, the scanner does not: %v", in, err)
		}
	})
}

// TestRoundTripLayouts: for each layout, adding our servers and taking
// them out again gives back the input byte for byte.
func TestRoundTripLayouts(t *testing.T) {
	tests := []struct{ name, in string }{
		{"pretty", "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"}\n  }\n}\n"},
		{"pretty empty servers", "{\n  \"mcpServers\": {}\n}\n"},
		{"tabs and crlf", "{\r\n\t\"mcpServers\": {\r\n\t\t\"a\": {\"command\": \"x\"}\r\n\t}\r\n}\r\n"},
		{"trailing commas", "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"},\n  },\n}\n"},
		{"comment after last member", "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"} // mine\n  }\n}\n"},
		{"comment after trailing comma", "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"}, /* mine */\n  }\n}\n"},
		{"comment lines around", "{\n  \"mcpServers\": {\n    // first\n    \"a\": {\"command\": \"x\"}\n    // last\n  }\n}\n"},
		{"inline", `{"mcpServers": {"a": {"command": "x"}}}`},
		{"inline trailing comma", `{"mcpServers": {"a": {"command": "x"}, }}`},
		{"minified", `{"mcpServers":{"a":{"command":"x"}}}`},
		{"minified empty", `{"k":1,"mcpServers":{}}`},
		{"comment only, own line", "{\n  \"mcpServers\": {\n    // none yet\n  }\n}\n"},
		{"comment only, shares the line", "{\n  \"mcpServers\": { /* none */ }\n}\n"},
		{"comment only, tight", "{\"mcpServers\":{/* none */}}"},
		{"comment only, stray CR", "{\"mcpServers\":{//\n\r}}"},
		{"bom", "\uFEFF{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"}\n  }\n}"},
		{"key not at line start", "{ \"mcpServers\": { \"a\": 1,\n  \"b\": 2\n}}"},
	}
	servers := []configServer{toolsServer, fixtureServers["linear"]}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Apply(Gemini, []byte(tt.in), servers, Options{})
			if err != nil {
				t.Fatal(err)
			}
			back, err := Remove(Gemini, res.Output, []string{configmigrate.HermesToolsName, "linear"})
			if err != nil {
				t.Fatal(err)
			}
			if string(back.Output) != tt.in {
				t.Errorf("round trip changed the file\n--- in\n%s\n--- applied\n%s\n--- removed\n%s", tt.in, res.Output, back.Output)
			}
			checkProperties(t, Gemini, []byte(tt.in), servers, Options{}, true)
		})
	}
}
