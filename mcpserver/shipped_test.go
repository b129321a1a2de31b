package mcpserver_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/testkit/golden"
	"github.com/hermes-go/hermes/internal/unidiff"
	"github.com/hermes-go/hermes/mcpserver"
	"github.com/hermes-go/hermes/toolsets"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// instructionsRegistry has a default toolset, one that is not, and a tool
// hidden by its check.
func instructionsRegistry(t *testing.T) *toolsets.Registry {
	t.Helper()
	noop := func(context.Context, json.RawMessage) (tooldef.Result, error) { return tooldef.OK(nil), nil }
	tool := func(name string) tooldef.Tool {
		return tooldef.Tool{Name: name, Description: "d", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`), Handler: noop, Hints: tooldef.Hints{ReadOnly: true}}
	}
	hidden := tool("needs_key")
	hidden.Check = func() error { return errors.New("set EXAMPLE_API_KEY to enable") }
	reg, err := toolsets.NewRegistry(
		tooldef.Toolset{Name: "alpha", Default: true, Tools: []tooldef.Tool{tool("a1"), tool("a2")}},
		tooldef.Toolset{Name: "beta", Tools: []tooldef.Tool{tool("b1"), hidden}},
	)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func TestInstructionsNameOnlyExposedTools(t *testing.T) {
	plan, err := instructionsRegistry(t).Resolve(toolsets.Selection{Toolsets: []string{"all"}, ExcludeTools: []string{"a2"}})
	if err != nil {
		t.Fatal(err)
	}
	got := mcpserver.Instructions(plan.Enabled())
	for _, want := range []string{"a1", "b1"} {
		if !strings.Contains(got, want) {
			t.Errorf("instructions lack exposed tool %s:\n%s", want, got)
		}
	}
	for _, hidden := range []string{"a2", "needs_key"} {
		if strings.Contains(got, hidden) {
			t.Errorf("instructions mention hidden tool %s:\n%s", hidden, got)
		}
	}
}

// builtinToolsets returns every shipped toolset over the fixture home.
func builtinToolsets(t *testing.T, home string) []tooldef.Toolset {
	t.Helper()
	box, err := toolsets.Builtin(toolsets.Env{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { box.Close() })
	if _, err := toolsets.NewRegistry(box.Toolsets...); err != nil {
		t.Fatalf("shipped declarations are invalid: %v", err)
	}
	return box.Toolsets
}

// sampleCalls exercise read-only tools beyond their minimal arguments,
// error paths included, for the check that they really write nothing.
var sampleCalls = map[string][]string{
	// No backend is configured in the fixture home and private URLs are
	// refused by default, so these reach no network.
	"web_search":         {`{"query":"golang"}`, `{"query":"golang","limit":3}`},
	"web_extract":        {`{"urls":["http://127.0.0.1:9/nothing"]}`, `{"urls":["https://example.com/?key=sk-abcdefghijklmnopqrstuvwx"]}`},
	"vision_analyze":     {`{"image_url":"/nonexistent/image.png","question":"What is shown?"}`},
	"browser_snapshot":   {`{"full":false}`},
	"browser_get_images": {`{}`},
	"skills_list":        {`{}`, `{"category":"research"}`, `{"category":"nope"}`},
	"skill_view":         {`{"name":"hello"}`, `{"name":"research/arxiv"}`, `{"name":"missing"}`, `{"name":"../etc"}`, `{"name":"hello","file_path":"references/none.md"}`},
	"kanban_show": {`{"task_id":"t_fixture1"}`, `{"task_id":"t_fixture2"}`, `{"task_id":"t_missing"}`, `{}`,
		`{"task_id":"t_fixture1","board":"ops"}`, `{"task_id":"t_fixture1","board":"Bad Slug"}`},
	"session_search": {`{}`, `{"query":"billing"}`, `{"query":"部署服务"}`, `{"query":"OOMKilled","role_filter":"tool"}`,
		`{"query":"zzz","sort":"newest"}`, `{"session_id":"20260101_090000_deploy"}`,
		`{"session_id":"20260101_090000_deploy","around_message_id":7,"window":2}`, `{"session_id":"nope"}`,
		`{"session_id":"20260101_090000_deploy","around_message_id":99999}`, `{"profile":"coder"}`, `{"query":"x","role_filter":"robot"}`},
}

// The hints themselves are pinned, with the schema, in each tool's snapshot
// (testdata/toolsnaps), so a change to them is a reviewed diff; this checks
// what a snapshot cannot: that a description says enough to guide a model.
func TestDescriptionsGuideAModel(t *testing.T) {
	for _, ts := range builtinToolsets(t, t.TempDir()) {
		for _, tl := range ts.Tools {
			if strings.TrimSpace(tl.Description) == "" || len(tl.Description) < 40 {
				t.Errorf("%s: description too thin to guide a model: %q", tl.Name, tl.Description)
			}
		}
	}
}

// A tool that says it is read-only must leave the Hermes home untouched,
// on success and on failure.
func TestReadOnlyToolsWriteNothing(t *testing.T) {
	home := copyTree(t, "testdata/home")
	before := treeDigest(t, home)
	for _, ts := range builtinToolsets(t, home) {
		for _, tl := range ts.Tools {
			if !tl.Hints.ReadOnly {
				continue
			}
			// A tool without hand-written calls is exercised with the
			// smallest arguments its schema accepts, so a new read-only
			// tool is proven from its first day.
			calls := append([]string{minimalArgs(t, tl.InputSchema)}, sampleCalls[tl.Name]...)
			for _, args := range calls {
				if _, err := tl.Handler(context.Background(), json.RawMessage(args)); err != nil {
					t.Errorf("%s(%s): %v", tl.Name, args, err)
				}
			}
		}
	}
	if after := treeDigest(t, home); after != before {
		t.Errorf("read-only tools changed the Hermes home:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// TestToolSchemaSnapshots pins what each tool advertises in tools/list, one
// file per tool, so a schema change is a reviewed diff.
func TestToolSchemaSnapshots(t *testing.T) {
	home, _ := filepath.Abs("testdata/home")
	// Every declared tool, including those hidden here for want of a
	// backend: what a tool advertises does not depend on configuration.
	plan := toolsets.EveryTool(builtinToolsets(t, home)...)
	listed, err := mcpserver.EncodedTools(plan)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for name, raw := range listed {
		seen[name+".json"] = true
		got, err := golden.Canonical(raw)
		if err != nil {
			t.Fatal(err)
		}
		golden.File(t, filepath.Join("testdata", "toolsnaps", name+".json"), got)
	}
	entries, _ := os.ReadDir(filepath.Join("testdata", "toolsnaps"))
	for _, e := range entries {
		if !seen[e.Name()] {
			t.Errorf("stale snapshot %s: no such tool is registered", e.Name())
		}
	}
}

const (
	tableBegin = "<!-- BEGIN TOOL TABLE (generated by `make docs`; do not edit) -->\n"
	tableEnd   = "<!-- END TOOL TABLE -->"
)

// TestReadmeToolTable fails when the README's tool table no longer matches
// the registry.
func TestReadmeToolTable(t *testing.T) {
	readme := filepath.Join("..", "README.md")
	data, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	i := strings.Index(text, tableBegin)
	j := strings.Index(text, tableEnd)
	if i < 0 || j < i {
		t.Fatalf("README.md lacks the tool table markers %q ... %q", tableBegin, tableEnd)
	}
	want := mcpserver.MarkdownToolTable(builtinToolsets(t, t.TempDir()))
	got := text[i+len(tableBegin) : j]
	if got == want {
		return
	}
	if golden.Update() {
		text = text[:i+len(tableBegin)] + want + text[j:]
		if err := os.WriteFile(readme, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README tool table is out of date; run `%s`\n%s", golden.Command, unidiff.Diff("README.md", "registry", []byte(got), []byte(want)))
}

// maxReadmeLines keeps the README something a newcomer reads in minutes:
// depth goes to docs/ and CONTRIBUTING.md.
const maxReadmeLines = 320

// TestReadmeStaysShort fails when the README outgrows a few screens, or
// links to a file of the repository that does not exist.
func TestReadmeStaysShort(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n > maxReadmeLines {
		t.Errorf("README.md has %d lines, more than %d: move depth into docs/ or CONTRIBUTING.md", n, maxReadmeLines)
	}
	for _, m := range regexp.MustCompile(`\]\(([^)#:]+)(#[^)]*)?\)`).FindAllStringSubmatch(string(data), -1) {
		if _, err := os.Stat(filepath.Join("..", m[1])); err != nil {
			t.Errorf("README.md links to %s, which is not in the repository", m[1])
		}
	}
}

func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// treeDigest lists every path under root with its mode, mtime and content
// hash.
func treeDigest(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		sum := ""
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h := sha256.Sum256(data)
			sum = hex.EncodeToString(h[:])
		}
		b.WriteString(rel + " " + info.Mode().String() + " " + info.ModTime().String() + " " + sum + "\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// minimalArgs builds the smallest argument object a tool's schema accepts:
// its required properties, each with a plain value of its type.
func minimalArgs(t *testing.T, schema json.RawMessage) string {
	t.Helper()
	var s struct {
		Required   []string `json:"required"`
		Properties map[string]struct {
			Type    any   `json:"type"`
			Enum    []any `json:"enum"`
			Minimum *float64
		} `json:"properties"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		t.Fatalf("schema: %v", err)
	}
	args := map[string]any{}
	for _, name := range s.Required {
		p := s.Properties[name]
		typ, _ := p.Type.(string)
		switch {
		case len(p.Enum) > 0:
			args[name] = p.Enum[0]
		case typ == "integer" || typ == "number":
			n := 1.0
			if p.Minimum != nil && *p.Minimum > n {
				n = *p.Minimum
			}
			args[name] = n
		case typ == "boolean":
			args[name] = false
		case typ == "array":
			args[name] = []any{"x"}
		case typ == "object":
			args[name] = map[string]any{}
		default:
			args[name] = "x"
		}
	}
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
