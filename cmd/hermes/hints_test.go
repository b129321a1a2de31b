package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// binaries are the commands this module ships; a message may send the
// user to any of them.
var binaries = []string{"hermes", "hermes-tools-mcp", "hermes-migrate"}

var (
	// backtickSpan is a command quoted in a message: `hermes tools`.
	backtickSpan = regexp.MustCompile("`([^`\n]+)`")
	// usageLine is a command at the start of an indented line of help
	// text, up to the gap before its description.
	usageLine = regexp.MustCompile(`(?m)^(?:  |\t)[ \t]*((?:hermes|hermes-tools-mcp|hermes-migrate)(?:[ \t]\S+)*)`)
	word      = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)
	// flagWord is a flag in a command line: --name or --name=value.
	flagWord = regexp.MustCompile(`^--?([a-z][a-z0-9-]*)(?:=.*)?$`)
)

// commandsIn returns the command lines a string names: each is the
// binary and its subcommand words, up to the first flag or placeholder.
func commandsIn(s string) []string {
	var out []string
	for _, c := range commandLinesIn(s) {
		out = append(out, c.command)
	}
	return out
}

// commandLine is a named command and the flags named with it.
type commandLine struct {
	command string
	flags   []string
}

func commandLinesIn(s string) []commandLine {
	var spans []string
	for _, m := range backtickSpan.FindAllStringSubmatch(s, -1) {
		spans = append(spans, m[1])
	}
	for _, m := range usageLine.FindAllStringSubmatch(s, -1) {
		spans = append(spans, m[1])
	}
	var out []commandLine
	for _, span := range spans {
		f := strings.Fields(span)
		if len(f) == 0 || !slices.Contains(binaries, f[0]) {
			continue
		}
		cmd := []string{f[0]}
		rest := f[1:]
		for len(rest) > 0 && word.MatchString(rest[0]) {
			cmd, rest = append(cmd, rest[0]), rest[1:]
		}
		var flags []string
		for _, w := range rest {
			if m := flagWord.FindStringSubmatch(w); m != nil {
				flags = append(flags, m[1])
			}
		}
		out = append(out, commandLine{strings.Join(cmd, " "), flags})
	}
	return out
}

// TestCommandsInMessagesExist collects every command named in the
// module's string literals (messages, help texts, the comment written
// into codex's config.toml) and runs it with --help against the built
// binaries: a message that names a command which does not exist fails
// here.
func TestCommandsInMessagesExist(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	named := map[string][]string{} // command -> where
	flags := map[string][]string{} // command -> flags named with it
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "bin" || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		// Tests name bogus commands on purpose.
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			for _, c := range commandLinesIn(s) {
				rel, _ := filepath.Rel(root, fset.Position(lit.Pos()).Filename)
				named[c.command] = append(named[c.command], rel+":"+strconv.Itoa(fset.Position(lit.Pos()).Line))
				flags[c.command] = append(flags[c.command], c.flags...)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The commands this change made exist must be among those found, or
	// the scan itself is broken.
	for _, must := range []string{"hermes sessions list", "hermes codex-runtime migrate", "hermes-tools-mcp doctor", "hermes tools"} {
		if _, ok := named[must]; !ok {
			t.Errorf("scan did not find %q in the sources; found %v", must, keys(named))
		}
	}
	if !slices.Contains(flags["hermes codex-runtime migrate"], "allow-literal-secrets") {
		t.Errorf("scan did not find the flag in `hermes codex-runtime migrate --allow-literal-secrets`; found %v", flags)
	}

	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", bin+string(os.PathSeparator), "./cmd/hermes", "./cmd/hermes-tools-mcp", "./cmd/hermes-migrate")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the binaries: %v\n%s", err, out)
	}
	home := t.TempDir()
	// The probe must tell a missing command from a real one, or every
	// check below passes vacuously.
	for _, bogus := range []string{"hermes nosuch", "hermes sessions nosuch", "hermes codex-runtime nosuch", "hermes chat nosuch", "hermes-tools-mcp nosuch", "hermes-migrate nosuch"} {
		if out, err := probe(bin, home, bogus); err == nil {
			t.Errorf("`%s --help` succeeds; the probe cannot catch a missing command:\n%s", bogus, out)
		}
	}
	for _, c := range keys(named) {
		f := strings.Fields(c)
		out, err := probe(bin, home, c)
		if f[0] == "hermes" && len(f) > 1 && pythonHermesCommands[f[1]] {
			// Kanban and skills-hub commands belong to the Python Hermes;
			// this hermes must say where to run them.
			if !strings.Contains(string(out), "command of the Python Hermes") {
				t.Errorf("%q (named at %s) belongs to the Python Hermes, but this hermes does not say so:\n%s", c, strings.Join(named[c], ", "), out)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q is named at %s but `%s --help` fails: %v\n%s", c, strings.Join(named[c], ", "), c, err, out)
			continue
		}
		// The flag package lists each flag as "  -name".
		for _, fl := range flags[c] {
			if !regexp.MustCompile(`(?m)^\s+-` + regexp.QuoteMeta(fl) + `\b`).Match(out) {
				t.Errorf("--%s is named with %q at %s but `%s --help` does not list it:\n%s", fl, c, strings.Join(named[c], ", "), c, out)
			}
		}
	}
	t.Logf("checked %d commands: %s", len(named), strings.Join(keys(named), "; "))
}

// probe runs `<command> --help` from bin with an empty home and no keys:
// --help must not depend on setup.
func probe(bin, home, command string) ([]byte, error) {
	f := strings.Fields(command)
	cmd := exec.Command(filepath.Join(bin, f[0]), append(f[1:], "--help")...)
	cmd.Env = []string{"HOME=" + home, "HERMES_HOME=" + home, "PATH=/usr/bin:/bin"}
	return cmd.CombinedOutput()
}

func keys(m map[string][]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestFlagsIn pins which flags count as named with a command.
func TestFlagsIn(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"run `hermes codex-runtime migrate --allow-literal-secrets` in a shell", []string{"allow-literal-secrets"}},
		{"see `hermes-tools-mcp doctor --toolsets all`", []string{"toolsets"}},
		{"`hermes chat -q hi --model=m2`", []string{"q", "model"}},
		{"`hermes sessions list`", nil},
	} {
		lines := commandLinesIn(tc.in)
		if len(lines) != 1 || !slices.Equal(lines[0].flags, tc.want) {
			t.Errorf("commandLinesIn(%q) = %+v, want flags %q", tc.in, lines, tc.want)
		}
	}
}

// TestCommandsIn pins what counts as a named command.
func TestCommandsIn(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"run `hermes sessions list` to see them", []string{"hermes sessions list"}},
		{"see `hermes-tools-mcp doctor --toolsets all`", []string{"hermes-tools-mcp doctor"}},
		{"# managed by hermes-agent — `hermes codex-runtime migrate` regenerates this section", []string{"hermes codex-runtime migrate"}},
		{"Usage:\n  hermes chat -q \"question\" [flags]\n  hermes <command> -h\n", []string{"hermes chat", "hermes"}},
		{"the `hermes-tools` server and `hermes_tools.toolsets`", nil},
		{"run `hermes codex-runtime migrate --allow-literal-secrets` in a shell", []string{"hermes codex-runtime migrate"}},
		{"hermes is the Hermes agent's terminal chat.", nil},
	} {
		if got := commandsIn(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("commandsIn(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
