package clientsync

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/hermes-go/hermes/internal/testkit/golden"
)

// TestGolden runs every testdata/golden/<client>/<case>.txtar.
//
// The archive comment holds directives, one "key: value" per line:
//
//	op: apply | remove        (default apply)
//	servers: name ...         fixtureServers to apply, in order
//	owned: name ...           Options.Owned
//	overwrite: true           Options.Overwrite
//	remove: name ...          names for Remove
//	crlf: true                input lines end in CRLF (shown as LF here)
//	bom: true                 input starts with a UTF-8 BOM
//	restores: case            the output must equal case's input
//	# source: ...             where the client's schema is documented
//
// Sections: "input" (absent: the file does not exist), then "want" and
// "result", which -update rewrites.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/golden/*/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files found: %v", err)
	}
	for _, file := range files {
		client := Client(filepath.Base(filepath.Dir(file)))
		name := string(client) + "/" + strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			dir := directives(t, ar.Comment)
			input, exists := golden.Section(ar, "input")
			var existing []byte
			if exists {
				existing = bytes.Clone(input)
				if dir["crlf"] == "true" {
					existing = bytes.ReplaceAll(existing, []byte("\n"), []byte("\r\n"))
				}
				if dir["bom"] == "true" {
					existing = append([]byte("\uFEFF"), existing...)
				}
			}

			res, err := run(client, existing, dir)
			if err != nil {
				t.Fatalf("%s: %v", dir["op"], err)
			}
			checkOutput(t, client, res.Output)
			out := res.Output
			if dir["crlf"] == "true" {
				if bytes.Contains(bytes.ReplaceAll(out, []byte("\r\n"), nil), []byte("\n")) {
					t.Errorf("output mixes bare LF into a CRLF file:\n%q", out)
				}
				out = bytes.ReplaceAll(out, []byte("\r\n"), []byte("\n"))
			}
			if dir["bom"] == "true" {
				var ok bool
				if out, ok = bytes.CutPrefix(out, []byte("\uFEFF")); !ok {
					t.Errorf("output lost the BOM")
				}
			}
			summary := summarize(res)
			if from := dir["restores"]; from != "" {
				orig, err := txtar.ParseFile(filepath.Join(filepath.Dir(file), from+".txtar"))
				if err != nil {
					t.Fatal(err)
				}
				if in, _ := golden.Section(orig, "input"); !bytes.Equal(out, in) {
					t.Errorf("remove did not restore %s's input:\n%s", from, out)
				}
			}

			golden.Archive(t, file, ar, []string{"want", "result"}, map[string][]byte{"want": out, "result": []byte(summary)})

			// Applying the same servers to the output changes nothing.
			if dir["op"] != "remove" && res.Changed {
				again, err := run(client, res.Output, dir)
				if err != nil {
					t.Fatal(err)
				}
				if again.Changed || !bytes.Equal(again.Output, res.Output) {
					t.Errorf("second apply is not a no-op:\n%s", again.Output)
				}
			}
		})
	}
}

func run(client Client, existing []byte, dir map[string]string) (Result, error) {
	if dir["op"] == "remove" {
		return Remove(client, existing, strings.Fields(dir["remove"]))
	}
	var servers []configServer
	for _, name := range strings.Fields(dir["servers"]) {
		s, ok := fixtureServers[name]
		if !ok {
			return Result{}, fmt.Errorf("unknown fixture server %q", name)
		}
		servers = append(servers, s)
	}
	return Apply(client, existing, servers, Options{
		Owned:     strings.Fields(dir["owned"]),
		Overwrite: dir["overwrite"] == "true",
	})
}

func directives(t *testing.T, comment []byte) map[string]string {
	dir := map[string]string{"op": "apply"}
	sc := bufio.NewScanner(bytes.NewReader(comment))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			t.Fatalf("directive %q is not key: value", line)
		}
		dir[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return dir
}

func summarize(r Result) string {
	list := func(s []string) string {
		if len(s) == 0 {
			return "-"
		}
		return strings.Join(s, ", ")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "changed: %v\nwritten: %s\nskipped: %s\nremoved: %s\n", r.Changed, list(r.Written), list(r.Skipped), list(r.Removed))
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	return b.String()
}

// checkOutput asserts what must hold for any output: it parses, its
// plain-JSON form is accepted by encoding/json, and the servers object
// is where the client looks for it.
func checkOutput(t *testing.T, client Client, out []byte) {
	t.Helper()
	if len(bytes.TrimSpace(out)) == 0 {
		return
	}
	if f := dialects[client].format; f == formatYAML || f == formatTOML {
		st, err := open(dialects[client], out)
		if err != nil {
			t.Fatalf("output does not parse: %v\n%s", err, out)
		}
		names, err := st.names()
		if err != nil {
			t.Fatal(err)
		}
		servers := map[string]any{}
		for _, n := range names {
			raw, _, _ := st.lookup(n)
			var v any
			if err := json.Unmarshal(raw, &v); err != nil {
				t.Fatalf("entry %s does not read back: %v", n, err)
			}
			servers[n] = v
		}
		checkSchema(t, client, map[string]any{dialects[client].rootKey: servers})
		return
	}
	std, err := Standardize(out)
	if err != nil {
		t.Fatalf("output does not parse: %v\n%s", err, out)
	}
	var doc map[string]any
	if err := json.Unmarshal(std, &doc); err != nil {
		t.Fatalf("encoding/json rejects the output: %v\n%s", err, std)
	}
	checkSchema(t, client, doc)
	if servers, ok := doc[dialects[client].rootKey]; ok {
		if _, ok := servers.(map[string]any); !ok {
			t.Errorf("%s is %T, want an object", dialects[client].rootKey, servers)
		}
	}
}
