package skillsext

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/hermes-go/hermes/mcpserver/jsonrpc"
	"github.com/hermes-go/hermes/toolsets/skills"
)

// pngBytes is a 1x1 PNG: binary, and not valid UTF-8.
var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99=\x1d\x00\x00\x00\x00IEND\xaeB`\x82")

func skillMD(name, description string, extra ...string) string {
	return "---\nname: " + name + "\ndescription: " + description + "\n" + strings.Join(extra, "\n") + "---\n# " + name + "\n\nBody.\n"
}

// fixture is a Hermes home and an external skills directory covering every
// rule of the extension; it returns the home, the external directory and
// an Extension over both.
func fixture(t *testing.T, pageSize int) (home, external string, x *Extension) {
	t.Helper()
	dir := t.TempDir()
	home, external = filepath.Join(dir, "home"), filepath.Join(dir, "external")
	outside := filepath.Join(dir, "secret.txt")
	files := map[string]string{
		// Served.
		"home/skills/hello/SKILL.md":                 skillMD("hello", "Greets the user.", "license: MIT", "metadata:", "  version: \"1.0\"", "  tags: [a, b]", ""),
		"home/skills/hello/references/phrases.md":    "# Phrases\n\nHola. Grüß dich. こんにちは\n",
		"home/skills/hello/assets/wave.png":          string(pngBytes),
		"home/skills/hello/.env":                     "SECRET=1\n",
		"home/skills/hello/node_modules/x.js":        "ignored\n",
		"home/skills/hello/empty.txt":                "",
		"home/skills/research/arxiv/SKILL.md":        skillMD("arxiv", "Finds papers."),
		"home/skills/my stuff/tool/SKILL.md":         skillMD("tool", "Lives under a category with a space."),
		"home/skills/outer/SKILL.md":                 skillMD("outer", "Encloses another skill."),
		"home/skills/outer/inner/SKILL.md":           skillMD("inner", "Nested in outer."),
		"home/skills/outer/inner/notes.md":           "inner notes\n",
		"home/skills/escape/SKILL.md":                skillMD("escape", "Has a link that leaves the skill."),
		"external/extra/SKILL.md":                    skillMD("extra", "From an external directory."),
		"external/research/SKILL.md":                 skillMD("research", "Would enclose the local research/arxiv."),
		"home/skills/Bad Name/SKILL.md":              skillMD("Bad Name", "Name breaks the rule."),
		"home/skills/mismatch/SKILL.md":              skillMD("other-name", "Name differs from the directory."),
		"home/skills/nodesc/SKILL.md":                "---\nname: nodesc\n---\nBody line is the listing description.\n",
		"home/skills/badyaml/SKILL.md":               "---\nname: badyaml\ndescription: \"unclosed\n---\nBody.\n",
		"home/skills/bom/SKILL.md":                   "\ufeff" + skillMD("bom", "Starts with a byte-order mark."),
		"home/skills/disabled/SKILL.md":              skillMD("disabled", "Disabled in config.yaml."),
		"home/skills/winonly/SKILL.md":               skillMD("winonly", "Windows only.", "platforms: [windows]", ""),
		"home/skills/big/SKILL.md":                   skillMD("big", "Too many files."),
		"home/config.yaml":                           "skills:\n  disabled: [disabled]\n",
		"secret.txt":                                 "outside the skill\n",
		"home/skills/hello/empty-dir/.keep-out/x.md": "hidden\n",
	}
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Over the per-skill byte limit, without writing 16 MiB.
	sparse(t, filepath.Join(home, "skills", "big", "data", "f000.txt"), MaxBytesPerSkill)
	if err := os.Symlink(outside, filepath.Join(home, "skills", "escape", "link.md")); err != nil {
		t.Fatal(err)
	}
	lib := skills.NewLibrary(skills.Options{Home: home, ExternalDirs: []string{external}, Platform: "linux"})
	return home, external, New(Options{Library: lib, PageSize: pageSize})
}

// sparse creates a file of size bytes that takes no space.
func sparse(t *testing.T, p string, size int64) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
}

// call runs one method and decodes its result into out, or returns its
// error.
func call(t *testing.T, ctx context.Context, x *Extension, method, params string, out any) error {
	t.Helper()
	fn := x.Methods()[method]
	if fn == nil {
		t.Fatalf("no method %s", method)
	}
	var raw json.RawMessage
	if params != "" {
		raw = json.RawMessage(params)
	}
	res, err := fn(ctx, raw)
	if err != nil {
		return err
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatalf("%s result does not encode: %v", method, err)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s result %s: %v", method, b, err)
		}
	}
	return nil
}

// rpcCode is the JSON-RPC code of err, 0 when it is not a *jsonrpc.Error.
func rpcCode(err error) int {
	var e *jsonrpc.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

// listAll pages through skills/list.
func listAll(t *testing.T, x *Extension) (all []Skill, pages int) {
	t.Helper()
	params := "{}"
	for {
		var res ListSkillsResult
		if err := call(t, context.Background(), x, MethodSkillsList, params, &res); err != nil {
			t.Fatal(err)
		}
		pages++
		all = append(all, res.Skills...)
		if res.NextCursor == "" {
			return all, pages
		}
		params = fmt.Sprintf(`{"cursor":%q}`, res.NextCursor)
		if pages > 100 {
			t.Fatal("pagination does not end")
		}
	}
}

// filePath maps a URI of the fixture to its file.
func filePath(home, external, uri string) string {
	rest := strings.TrimPrefix(uri, "skill://")
	rest = strings.ReplaceAll(rest, "%20", " ")
	if strings.HasPrefix(rest, "extra/") {
		return filepath.Join(external, filepath.FromSlash(rest))
	}
	return filepath.Join(home, "skills", filepath.FromSlash(rest))
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

func TestListSkills(t *testing.T) {
	t.Parallel()
	home, external, x := fixture(t, 2)
	all, pages := listAll(t, x)
	var uris []string
	for _, s := range all {
		uris = append(uris, s.URI)
	}
	want := []string{
		"skill://escape/SKILL.md",
		"skill://extra/SKILL.md",
		"skill://hello/SKILL.md",
		"skill://my%20stuff/tool/SKILL.md",
		"skill://outer/SKILL.md",
		"skill://outer/inner/SKILL.md",
		"skill://research/arxiv/SKILL.md",
	}
	if !slices.Equal(uris, want) {
		t.Fatalf("listed\n%v\nwant\n%v", uris, want)
	}
	if pages != 4 {
		t.Errorf("%d pages of at most 2, want 4", pages)
	}

	wantFiles := map[string][]string{
		"skill://hello/SKILL.md": {"SKILL.md", "assets/wave.png", "empty.txt", "references/phrases.md"},
		// Completeness extends to nested skills.
		"skill://outer/SKILL.md":       {"SKILL.md", "inner/SKILL.md", "inner/notes.md"},
		"skill://outer/inner/SKILL.md": {"SKILL.md", "notes.md"},
		// The link out of the skill is not a file of it.
		"skill://escape/SKILL.md": {"SKILL.md"},
	}
	for _, s := range all {
		md, err := os.ReadFile(filePath(home, external, s.URI))
		if err != nil {
			t.Fatal(err)
		}
		fields, err := skills.ParseFrontmatter(md)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(roundTrip(t, fields), s.Frontmatter) {
			t.Errorf("%s frontmatter = %v, want the file's %v", s.URI, s.Frontmatter, fields)
		}
		if s.Resources[0].URI != s.URI {
			t.Errorf("%s: first resource is %s, want SKILL.md itself", s.URI, s.Resources[0].URI)
		}
		var rels []string
		root := strings.TrimSuffix(s.URI, "SKILL.md")
		for _, r := range s.Resources {
			rels = append(rels, strings.TrimPrefix(r.URI, root))
			// Digests checked against the files on disk.
			b, err := os.ReadFile(filePath(home, external, r.URI))
			if err != nil {
				t.Fatalf("%s: %v", r.URI, err)
			}
			if r.Digest != sha(b) || r.Size != int64(len(b)) {
				t.Errorf("%s: digest %s size %d, file has %s size %d", r.URI, r.Digest, r.Size, sha(b), len(b))
			}
		}
		if w, ok := wantFiles[s.URI]; ok {
			slices.Sort(rels)
			if !slices.Equal(rels, w) {
				t.Errorf("%s manifest = %v, want %v", s.URI, rels, w)
			}
		}
	}
	hello := all[slices.IndexFunc(all, func(s Skill) bool { return s.URI == "skill://hello/SKILL.md" })]
	if got := fmt.Sprint(hello.Frontmatter); got != "map[description:Greets the user. license:MIT metadata:map[tags:[a b] version:1.0] name:hello]" {
		t.Errorf("hello frontmatter = %s; every field must pass through", got)
	}
}

// roundTrip gives v the types it has after JSON, as the entry's fields do.
func roundTrip(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// Every manifest entry reads back, through resources/read, as bytes with
// the advertised digest and size: what a host verifies.
func TestManifestVerifiesAgainstReads(t *testing.T) {
	t.Parallel()
	_, _, x := fixture(t, 0)
	all, _ := listAll(t, x)
	for _, s := range all {
		for _, r := range s.Resources {
			var res ReadResourceResult
			if err := call(t, context.Background(), x, MethodResourcesRead, fmt.Sprintf(`{"uri":%q}`, r.URI), &res); err != nil {
				t.Fatalf("read %s: %v", r.URI, err)
			}
			if len(res.Contents) != 1 || res.Contents[0].URI != r.URI {
				t.Fatalf("read %s: contents %+v", r.URI, res.Contents)
			}
			b := contentBytes(t, res.Contents[0])
			if sha(b) != r.Digest || int64(len(b)) != r.Size {
				t.Errorf("%s: read %d bytes %s, manifest says %d %s", r.URI, len(b), sha(b), r.Size, r.Digest)
			}
		}
	}
}

func contentBytes(t *testing.T, c ResourceContents) []byte {
	t.Helper()
	switch {
	case c.Text != nil && c.Blob == "":
		return []byte(*c.Text)
	case c.Text == nil:
		b, err := base64.StdEncoding.DecodeString(c.Blob)
		if err != nil {
			t.Fatalf("%s: blob is not base64: %v", c.URI, err)
		}
		return b
	}
	t.Fatalf("%s has both text and blob", c.URI)
	return nil
}

func TestGetSkill(t *testing.T) {
	t.Parallel()
	_, _, x := fixture(t, 0)
	listed, _ := listAll(t, x)
	byURI := map[string]Skill{}
	for _, s := range listed {
		byURI[s.URI] = s
	}
	tests := []struct {
		name, params string
		want         string // the entry's URI; "" for an error
		errContains  string
	}{
		{"top-level skill", `{"uri":"skill://hello/SKILL.md"}`, "skill://hello/SKILL.md", ""},
		{"skill in a category", `{"uri":"skill://research/arxiv/SKILL.md"}`, "skill://research/arxiv/SKILL.md", ""},
		{"nested skill", `{"uri":"skill://outer/inner/SKILL.md"}`, "skill://outer/inner/SKILL.md", ""},
		{"external directory", `{"uri":"skill://extra/SKILL.md"}`, "skill://extra/SKILL.md", ""},
		{"equivalent escapes", `{"uri":"skill://%68ello/SKILL.md"}`, "skill://hello/SKILL.md", ""},
		{"escaped space", `{"uri":"skill://my%20stuff/tool/SKILL.md"}`, "skill://my%20stuff/tool/SKILL.md", ""},
		{"unknown skill", `{"uri":"skill://acme/billing/chargebacks/SKILL.md"}`, "", "No skill is served at skill://acme/billing/chargebacks/SKILL.md"},
		{"traversal", `{"uri":"skill://research/../hello/SKILL.md"}`, "", `"." and ".." segments are not allowed`},
		{"escaped traversal", `{"uri":"skill://research/%2E%2E/hello/SKILL.md"}`, "", `"." and ".." segments are not allowed`},
		{"escaped separator", `{"uri":"skill://research%2Farxiv/SKILL.md"}`, "", "No skill is served"},
		{"a supporting file", `{"uri":"skill://hello/references/phrases.md"}`, "", "No skill is served"},
		{"the skill directory", `{"uri":"skill://hello"}`, "", "No skill is served"},
		{"another scheme", `{"uri":"file:///etc/passwd"}`, "", "No skill is served"},
		{"query", `{"uri":"skill://hello/SKILL.md?x=1"}`, "", "No skill is served"},
		{"disabled in config.yaml", `{"uri":"skill://disabled/SKILL.md"}`, "", "No skill is served"},
		{"other platform", `{"uri":"skill://winonly/SKILL.md"}`, "", "No skill is served"},
		{"name breaks the rule", `{"uri":"skill://Bad%20Name/SKILL.md"}`, "", "No skill is served"},
		{"name differs from directory", `{"uri":"skill://mismatch/SKILL.md"}`, "", "No skill is served"},
		{"no description in frontmatter", `{"uri":"skill://nodesc/SKILL.md"}`, "", "No skill is served"},
		{"frontmatter is not YAML", `{"uri":"skill://badyaml/SKILL.md"}`, "", "No skill is served"},
		{"byte-order mark", `{"uri":"skill://bom/SKILL.md"}`, "", "No skill is served"},
		{"over the per-skill limits", `{"uri":"skill://big/SKILL.md"}`, "", "No skill is served"},
		{"external clash with a local skill", `{"uri":"skill://research/SKILL.md"}`, "", "No skill is served"},
		{"missing uri", `{}`, "", "uri is required"},
		{"no params", ``, "", "uri is required"},
		{"uri not a string", `{"uri":7}`, "", "Invalid params for skills/get"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var res GetSkillResult
			err := call(t, context.Background(), x, MethodSkillsGet, tt.params, &res)
			if tt.want == "" {
				if rpcCode(err) != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), tt.errContains) {
					t.Fatalf("err = %v (code %d), want -32602 containing %q", err, rpcCode(err), tt.errContains)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// skills/get and skills/list entries are identical.
			if !reflect.DeepEqual(res.Skill, byURI[tt.want]) {
				t.Errorf("skills/get = %+v\nskills/list entry = %+v", res.Skill, byURI[tt.want])
			}
		})
	}
}

func TestReadResource(t *testing.T) {
	t.Parallel()
	home, _, x := fixture(t, 0)
	read := func(rel string) []byte {
		b, err := os.ReadFile(filepath.Join(home, "skills", filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tests := []struct {
		name, uri, mime string
		want            []byte // nil: an error
		blob            bool
		errContains     string
	}{
		{"SKILL.md", "skill://hello/SKILL.md", "text/markdown", read("hello/SKILL.md"), false, ""},
		{"UTF-8 text", "skill://hello/references/phrases.md", "text/markdown", read("hello/references/phrases.md"), false, ""},
		{"binary asset", "skill://hello/assets/wave.png", "image/png", pngBytes, true, ""},
		{"empty file", "skill://hello/empty.txt", "text/plain", []byte{}, false, ""},
		{"nested skill's file via the enclosing path", "skill://outer/inner/notes.md", "text/markdown", read("outer/inner/notes.md"), false, ""},
		{"hidden file", "skill://hello/.env", "", nil, false, "No skill file is served at skill://hello/.env"},
		{"excluded directory", "skill://hello/node_modules/x.js", "", nil, false, "No skill file is served"},
		{"link leaving the skill", "skill://escape/link.md", "", nil, false, "No skill file is served"},
		{"traversal", "skill://hello/../escape/link.md", "", nil, false, `"." and ".." segments are not allowed`},
		{"traversal to the disk", "skill://hello/../../../secret.txt", "", nil, false, `"." and ".." segments are not allowed`},
		{"unknown file", "skill://hello/references/none.md", "", nil, false, "No skill file is served"},
		{"unknown skill", "skill://nope/SKILL.md", "", nil, false, "No skill file is served"},
		{"file of a skill that is not served", "skill://big/data/f000.txt", "", nil, false, "No skill file is served"},
		{"skill directory", "skill://hello", "", nil, false, "is a directory resource"},
		{"subdirectory", "skill://hello/assets", "", nil, false, "is a directory resource"},
		{"prefix directory", "skill://research", "", nil, false, "is a directory resource"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var res ReadResourceResult
			err := call(t, context.Background(), x, MethodResourcesRead, fmt.Sprintf(`{"uri":%q}`, tt.uri), &res)
			if tt.want == nil {
				if rpcCode(err) != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), tt.errContains) {
					t.Fatalf("err = %v (code %d), want -32602 containing %q", err, rpcCode(err), tt.errContains)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c := res.Contents[0]
			if c.MIMEType != tt.mime || (c.Blob != "") != tt.blob {
				t.Errorf("mimeType %q blob %v, want %q %v", c.MIMEType, c.Blob != "", tt.mime, tt.blob)
			}
			if got := contentBytes(t, c); !bytes.Equal(got, tt.want) {
				t.Errorf("content %q, want %q", got, tt.want)
			}
		})
	}
}

// A file edited after a listing is read as it is now, and the next listing
// has its new digest: nothing is cached past the request.
func TestEditsAreSeen(t *testing.T) {
	t.Parallel()
	home, _, x := fixture(t, 0)
	get := func() SkillResource {
		var res GetSkillResult
		if err := call(t, context.Background(), x, MethodSkillsGet, `{"uri":"skill://hello/SKILL.md"}`, &res); err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Skill.Resources {
			if r.URI == "skill://hello/references/phrases.md" {
				return r
			}
		}
		t.Fatal("phrases.md not in the manifest")
		return SkillResource{}
	}
	before := get()
	edited := []byte("# Phrases\n\nedited\n")
	if err := os.WriteFile(filepath.Join(home, "skills", "hello", "references", "phrases.md"), edited, 0o644); err != nil {
		t.Fatal(err)
	}
	after := get()
	if after.Digest == before.Digest || after.Digest != sha(edited) || after.Size != int64(len(edited)) {
		t.Errorf("after the edit: %+v, want digest %s size %d", after, sha(edited), len(edited))
	}
}

func TestReadDirectory(t *testing.T) {
	t.Parallel()
	_, _, x := fixture(t, 0)
	type child struct{ URI, Name, MIME string }
	tests := []struct {
		name, uri   string
		want        []child
		errContains string
	}{
		{"skill root", "skill://hello", []child{
			{"skill://hello/SKILL.md", "hello", "text/markdown"},
			{"skill://hello/assets", "assets", DirectoryMIMEType},
			{"skill://hello/empty-dir", "empty-dir", DirectoryMIMEType},
			{"skill://hello/empty.txt", "empty.txt", "text/plain"},
			{"skill://hello/references", "references", DirectoryMIMEType},
		}, ""},
		{"trailing slash tolerated", "skill://hello/assets/", []child{{"skill://hello/assets/wave.png", "wave.png", "image/png"}}, ""},
		{"directory with only hidden content is empty", "skill://hello/empty-dir", []child{}, ""},
		{"nested skill is a directory of the enclosing one", "skill://outer", []child{
			{"skill://outer/SKILL.md", "outer", "text/markdown"},
			{"skill://outer/inner", "inner", DirectoryMIMEType},
		}, ""},
		{"nested SKILL.md is its skill's resource", "skill://outer/inner", []child{
			{"skill://outer/inner/SKILL.md", "inner", "text/markdown"},
			{"skill://outer/inner/notes.md", "notes.md", "text/markdown"},
		}, ""},
		{"category above a skill", "skill://research", []child{{"skill://research/arxiv", "arxiv", DirectoryMIMEType}}, ""},
		{"escaped category", "skill://my%20stuff", []child{{"skill://my%20stuff/tool", "tool", DirectoryMIMEType}}, ""},
		{"a file", "skill://hello/SKILL.md", nil, "skill://hello/SKILL.md is not a directory resource"},
		{"unknown", "skill://nope", nil, "No directory resource is served at skill://nope"},
		{"hidden directory", "skill://hello/empty-dir/.keep-out", nil, "No directory resource is served"},
		{"skill that is not served", "skill://big/data", nil, "No directory resource is served"},
		{"traversal", "skill://hello/..", nil, `"." and ".." segments are not allowed`},
		{"scheme root", "skill://", nil, "No directory resource is served"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var res ListResourcesResult
			err := call(t, context.Background(), x, MethodDirectoryRead, fmt.Sprintf(`{"uri":%q}`, tt.uri), &res)
			if tt.want == nil {
				if rpcCode(err) != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), tt.errContains) {
					t.Fatalf("err = %v (code %d), want -32602 containing %q", err, rpcCode(err), tt.errContains)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := []child{}
			for _, r := range res.Resources {
				got = append(got, child{r.URI, r.Name, r.MIMEType})
				if (r.MIMEType == DirectoryMIMEType) != (r.Size == nil) {
					t.Errorf("%s: size %v; files carry a size, directories none", r.URI, r.Size)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("children\n%v\nwant\n%v", got, tt.want)
			}
		})
	}
}

func TestPagination(t *testing.T) {
	t.Parallel()
	_, _, x := fixture(t, 2)
	ctx := context.Background()
	// resources/directory/read pages through a directory's children.
	var uris []string
	params := `{"uri":"skill://hello"}`
	for range 10 {
		var res ListResourcesResult
		if err := call(t, ctx, x, MethodDirectoryRead, params, &res); err != nil {
			t.Fatal(err)
		}
		if len(res.Resources) > 2 {
			t.Fatalf("page of %d, want at most 2", len(res.Resources))
		}
		for _, r := range res.Resources {
			uris = append(uris, r.URI)
		}
		if res.NextCursor == "" {
			break
		}
		params = fmt.Sprintf(`{"uri":"skill://hello","cursor":%q}`, res.NextCursor)
	}
	if len(uris) != 5 || !slices.IsSorted(uris) {
		t.Errorf("paged children = %v, want 5 in order", uris)
	}
	// resources/list lists each served skill's SKILL.md.
	var names []string
	params = `{}`
	for range 10 {
		var res ListResourcesResult
		if err := call(t, ctx, x, MethodResourcesList, params, &res); err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Resources {
			names = append(names, r.Name)
			if r.MIMEType != "text/markdown" || r.Description == "" {
				t.Errorf("%s: mimeType %q description %q", r.URI, r.MIMEType, r.Description)
			}
		}
		if res.NextCursor == "" {
			break
		}
		params = fmt.Sprintf(`{"cursor":%q}`, res.NextCursor)
	}
	if want := []string{"escape", "extra", "hello", "tool", "outer", "inner", "arxiv"}; !slices.Equal(names, want) {
		t.Errorf("resources/list names = %v, want %v", names, want)
	}

	// Bad cursors, and a cursor of another method, are invalid params.
	var first ListSkillsResult
	if err := call(t, ctx, x, MethodSkillsList, `{}`, &first); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ method, params string }{
		{MethodSkillsList, `{"cursor":"!!"}`},
		{MethodSkillsList, `{"cursor":""}`},
		{MethodResourcesList, fmt.Sprintf(`{"cursor":%q}`, first.NextCursor)},
		{MethodDirectoryRead, fmt.Sprintf(`{"uri":"skill://hello","cursor":%q}`, first.NextCursor)},
		{MethodSkillsList, `{"cursor":7}`},
	} {
		if err := call(t, ctx, x, tt.method, tt.params, nil); rpcCode(err) != jsonrpc.CodeInvalidParams {
			t.Errorf("%s %s: err = %v, want -32602", tt.method, tt.params, err)
		}
	}
}

// 2026-07-28 results carry the caching hints the revision requires;
// earlier revisions do not define them.
func TestCacheHints(t *testing.T) {
	t.Parallel()
	_, _, x := fixture(t, 0)
	modern := server.WithRequestProtocolInfo(context.Background(), &server.RequestProtocolInfo{Modern: true, ProtocolVersion: "2026-07-28"})
	calls := []struct{ method, params string }{
		{MethodSkillsList, `{}`},
		{MethodSkillsGet, `{"uri":"skill://hello/SKILL.md"}`},
		{MethodResourcesRead, `{"uri":"skill://hello/SKILL.md"}`},
		{MethodResourcesList, `{}`},
		{MethodDirectoryRead, `{"uri":"skill://hello"}`},
	}
	for _, c := range calls {
		for _, era := range []struct {
			ctx  context.Context
			want string
		}{{context.Background(), "<nil> <nil>"}, {modern, "0 private"}} {
			var got map[string]any
			if err := call(t, era.ctx, x, c.method, c.params, &got); err != nil {
				t.Fatal(err)
			}
			if s := fmt.Sprint(got["ttlMs"], " ", got["cacheScope"]); s != era.want {
				t.Errorf("%s: ttlMs cacheScope = %s, want %s", c.method, s, era.want)
			}
		}
	}
}

func TestURIs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		segs []string
		uri  string
	}{
		{[]string{"git-workflow", "SKILL.md"}, "skill://git-workflow/SKILL.md"},
		{[]string{"acme", "billing", "refunds", "SKILL.md"}, "skill://acme/billing/refunds/SKILL.md"},
		{[]string{"my stuff", "ünï", "a+b:c@d", "SKILL.md"}, "skill://my%20stuff/%C3%BCn%C3%AF/a%2Bb%3Ac%40d/SKILL.md"},
		{[]string{"x~y_z.v-1"}, "skill://x~y_z.v-1"},
	}
	for _, tt := range tests {
		if got := buildURI(tt.segs...); got != tt.uri {
			t.Errorf("buildURI(%q) = %s, want %s", tt.segs, got, tt.uri)
		}
		if got, err := parseURI(tt.uri); err != nil || !slices.Equal(got, tt.segs) {
			t.Errorf("parseURI(%s) = %q, %v", tt.uri, got, err)
		}
	}
	for _, bad := range []string{"", "skill://", "skill:///x", "skill://a//b", "skill://a/", "skill://a/%zz", "skill://a/%2", "skill://a#f", "http://a/b", "skill://a/./b", "skill://a/%2e"} {
		if segs, err := parseURI(bad); err == nil {
			t.Errorf("parseURI(%q) = %q, want an error", bad, segs)
		}
	}
	if got, err := parseURI("SKILL://A/b"); err != nil || !slices.Equal(got, []string{"A", "b"}) {
		t.Errorf("the scheme is case-insensitive, the path is not: %q %v", got, err)
	}
}

func TestCapability(t *testing.T) {
	t.Parallel()
	_, _, x := fixture(t, 0)
	b, _ := json.Marshal(map[string]any{ExtensionID: x.Capability()})
	if string(b) != `{"io.modelcontextprotocol/skills":{"directoryRead":true}}` {
		t.Errorf("capability = %s", b)
	}
	var names []string
	for m := range x.Methods() {
		names = append(names, m)
	}
	slices.Sort(names)
	if want := []string{"resources/directory/read", "resources/list", "resources/read", "skills/get", "skills/list"}; !slices.Equal(names, want) {
		t.Errorf("methods = %v, want %v", names, want)
	}
}

// The extension's limits are inclusive: a skill at either limit is served,
// one past it is not.
func TestLimits(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(home, "skills", filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	md := map[string]string{}
	for _, name := range []string{"files-at", "files-over", "bytes-at", "bytes-over"} {
		md[name] = skillMD(name, "Limit fixture.")
		write(name+"/SKILL.md", md[name])
	}
	// Hard links to one empty file: a file each, at a syscall each.
	write("files-at/d/f000", "")
	for _, name := range []string{"files-at", "files-over"} {
		dir := filepath.Join(home, "skills", name, "d")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		n := MaxResourcesPerSkill - 1
		if name == "files-over" {
			n++
		}
		for i := range n {
			p := filepath.Join(dir, fmt.Sprintf("f%03d", i))
			if p == filepath.Join(home, "skills", "files-at", "d", "f000") {
				continue
			}
			if err := os.Link(filepath.Join(home, "skills", "files-at", "d", "f000"), p); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The bytes spread over files of at most skills.MaxFileBytes, the
	// limit on each.
	spread := func(name string, total int64) {
		for i := 0; total > 0; i++ {
			n := min(total, skills.MaxFileBytes)
			sparse(t, filepath.Join(home, "skills", name, fmt.Sprintf("zeros%02d", i)), n)
			total -= n
		}
	}
	spread("bytes-at", MaxBytesPerSkill-int64(len(md["bytes-at"])))
	spread("bytes-over", MaxBytesPerSkill-int64(len(md["bytes-over"]))+1)
	// One file over the per-file limit keeps a skill out, however small.
	write("file-over/SKILL.md", skillMD("file-over", "One file too big."))
	sparse(t, filepath.Join(home, "skills", "file-over", "big.bin"), skills.MaxFileBytes+1)

	x := New(Options{Library: skills.NewLibrary(skills.Options{Home: home, Platform: "linux"})})
	// resources/list applies the same limits as skills/list without
	// hashing 16 MiB.
	var res ListResourcesResult
	if err := call(t, context.Background(), x, MethodResourcesList, `{}`, &res); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range res.Resources {
		got = append(got, r.URI)
	}
	if want := []string{"skill://bytes-at/SKILL.md", "skill://files-at/SKILL.md"}; !slices.Equal(got, want) {
		t.Errorf("served = %v, want %v", got, want)
	}
	var entry GetSkillResult
	if err := call(t, context.Background(), x, MethodSkillsGet, `{"uri":"skill://files-at/SKILL.md"}`, &entry); err != nil {
		t.Fatal(err)
	}
	if n := len(entry.Skill.Resources); n != MaxResourcesPerSkill {
		t.Errorf("files-at has %d resources, want %d", n, MaxResourcesPerSkill)
	}
}

// A skill tagged for an environment that is not active here is not in the
// catalog (it is not offered), and is once the environment is: the
// catalog is the skills_list view.
func TestCatalogHonoursEnvironments(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	for rel, content := range map[string]string{
		"skills/everywhere/SKILL.md": skillMD("everywhere", "No tags."),
		"skills/board/SKILL.md":      skillMD("board", "For kanban work.", "environments: [kanban]", ""),
	} {
		p := filepath.Join(home, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(content), 0o644)
	}
	env := map[string]string{}
	lib := skills.NewLibrary(skills.Options{Home: home, Platform: "linux", SystemRoot: t.TempDir(),
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	x := New(Options{Library: lib})
	uris := func() []string {
		all, _ := listAll(t, x)
		var out []string
		for _, s := range all {
			out = append(out, s.URI)
		}
		return out
	}
	if got := uris(); !slices.Equal(got, []string{"skill://everywhere/SKILL.md"}) {
		t.Errorf("kanban off: catalog %q", got)
	}
	env["HERMES_KANBAN_TASK"] = "t_1"
	if got := uris(); !slices.Equal(got, []string{"skill://board/SKILL.md", "skill://everywhere/SKILL.md"}) {
		t.Errorf("kanban on: catalog %q", got)
	}
}
