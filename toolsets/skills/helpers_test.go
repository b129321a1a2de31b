package skills

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/hermes-go/hermes/internal/hermesenv"
	"github.com/hermes-go/hermes/toolsets/tooldef"
	"github.com/hermes-go/hermes/toolsets/tooldef/tooldeftest"
)

// fixture is a private copy of testdata, so tests may add symlinks, .env
// files and edits without touching the repository.
type fixture struct {
	home     string
	external string
	// sysRoot stands for "/" where the docker and s6 markers are looked
	// up: empty, so the machine running the tests decides nothing.
	sysRoot  string
	env      map[string]string
	commands map[string]bool
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	dir := t.TempDir()
	f := &fixture{
		home:     filepath.Join(dir, "home"),
		external: filepath.Join(dir, "external"),
		sysRoot:  filepath.Join(dir, "sysroot"),
		env:      map[string]string{},
		commands: map[string]bool{},
	}
	copyTree(t, filepath.Join("testdata", "home"), f.home)
	copyTree(t, filepath.Join("testdata", "external"), f.external)
	if err := os.MkdirAll(f.sysRoot, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(f.home, ".env"), "# fixture secrets\nexport DOTENV_ONLY=\"from dotenv\"\nEMPTY_IN_DOTENV=\n")
	return f
}

func (f *fixture) options() Options {
	return Options{
		Home:         f.home,
		ExternalDirs: []string{f.external},
		Platform:     "linux",
		SystemRoot:   f.sysRoot,
		// What hermes-tools-mcp hands the library: the test's environment
		// with the home's .env loaded over it.
		LookupEnv: func(k string) (string, bool) {
			var environ []string
			for name, v := range f.env {
				environ = append(environ, name+"="+v)
			}
			return hermesenv.Load(f.home, environ).LookupEnv(k)
		},
		LookPath: func(c string) (string, error) {
			if f.commands[c] {
				return "/usr/bin/" + c, nil
			}
			return "", errors.New("not found")
		},
	}
}

func copyTree(t testing.TB, src, dst string) {
	t.Helper()
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
		t.Fatalf("copy %s: %v", src, err)
	}
}

func writeFile(t testing.TB, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// caller runs the toolset's handlers the way the server does: arguments
// validated against the input schema, results encoded to JSON. Every
// success result is checked against the tool's output schema.
type caller struct {
	t      testing.TB
	tools  map[string]tooldef.Tool
	input  map[string]*jsonschema.Schema
	output map[string]*jsonschema.Schema
}

func newCaller(t testing.TB, ts tooldef.Toolset) *caller {
	t.Helper()
	c := &caller{t: t, tools: map[string]tooldef.Tool{}, input: map[string]*jsonschema.Schema{}, output: map[string]*jsonschema.Schema{}}
	for _, tool := range ts.Tools {
		c.tools[tool.Name] = tool
		c.input[tool.Name] = tooldeftest.CompileSchema(t, tool.Name+"-input", tool.InputSchema)
		c.output[tool.Name] = tooldeftest.CompileSchema(t, tool.Name+"-output", tool.OutputSchema)
	}
	return c
}

// call returns the decoded result and whether it was an error result.
func (c *caller) call(tool string, args any) (map[string]any, bool) {
	c.t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		c.t.Fatal(err)
	}
	inst, _ := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err := c.input[tool].Validate(inst); err != nil {
		c.t.Fatalf("%s%s: arguments rejected by input schema: %v", tool, raw, err)
	}
	res, err := c.tools[tool].Handler(context.Background(), raw)
	if err != nil {
		c.t.Fatalf("%s%s: handler error: %v", tool, raw, err)
	}
	out, err := json.Marshal(res.Value)
	if err != nil {
		c.t.Fatalf("%s%s: result does not encode: %v", tool, raw, err)
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		c.t.Fatalf("%s%s: result is not an object: %s", tool, raw, out)
	}
	if !res.IsError {
		inst, _ := jsonschema.UnmarshalJSON(bytes.NewReader(out))
		if err := c.output[tool].Validate(inst); err != nil {
			c.t.Fatalf("%s%s: result violates output schema: %v\n%s", tool, raw, err, out)
		}
		if m["success"] != true {
			c.t.Fatalf("%s%s: success result without success:true: %s", tool, raw, out)
		}
	} else if m["success"] != false || m["error"] == "" {
		c.t.Fatalf("%s%s: error result not shaped {success:false,error}: %s", tool, raw, out)
	}
	return m, res.IsError
}

// mustOK calls and fails the test on an error result.
func (c *caller) mustOK(tool string, args any) map[string]any {
	c.t.Helper()
	m, isErr := c.call(tool, args)
	if isErr {
		c.t.Fatalf("%s %v: unexpected error result: %v", tool, args, m)
	}
	return m
}

// mustFail calls and fails the test on a success result.
func (c *caller) mustFail(tool string, args any) map[string]any {
	c.t.Helper()
	m, isErr := c.call(tool, args)
	if !isErr {
		c.t.Fatalf("%s %v: expected an error result, got %v", tool, args, m)
	}
	return m
}

// names extracts skill names from a skills_list result.
func names(m map[string]any) []string {
	var out []string
	for _, s := range m["skills"].([]any) {
		out = append(out, s.(map[string]any)["name"].(string))
	}
	return out
}

func strs(v any) []string {
	out := []string{}
	list, _ := v.([]any)
	for _, e := range list {
		out = append(out, e.(string))
	}
	return out
}
