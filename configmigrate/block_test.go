package configmigrate

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// TestManagedBlockMarkers: marker lines count only as whole lines at the
// top level of the document; anything else is the user's text.
func TestManagedBlockMarkers(t *testing.T) {
	const b, e = BeginMarker, EndMarker
	block := b + "\n" + `default_permissions = ":workspace"` + "\n" + e + "\n"
	tests := []struct {
		name      string
		text      string
		wantBlock bool
		wantLines []int // the lines a *MarkerError names; nil: no error
	}{
		{"plain block", "a = 1\n" + block + "[t]\n", true, nil},
		{"trailing blanks and CR", "a = 1\r\n" + b + " \t\r\n" + e + "\t \r\n", true, nil},
		{"indented marker is text", "  " + b + "\n", false, nil},
		{"after an inline comment", "a = 1 # " + b + "\n", false, nil},
		{"inside a basic string", "a = \"" + b + "\"\n", false, nil},
		{"both markers in a multi-line basic string", "s = \"\"\"\n" + block + "\"\"\"\n", false, nil},
		{"begin marker in a multi-line literal string", "s = '''\n" + b + "\n'''\n", false, nil},
		{"escaped quotes do not close", "s = \"\"\"x\\\"\"\"\n" + b + "\n\"\"\"\n", false, nil},
		{"escaped backslash before the close", "s = \"\"\"x\\\\\"\"\"\n" + block, true, nil},
		{"four quotes close with a quote inside", "s = \"\"\"x\"\"\"\"\n" + block, true, nil},
		{"five quotes close with two inside", "s = '''x'''''\n" + block, true, nil},
		{"quote at the line end stays open", "s = \"\"\"x\"\n" + b + "\n\"\"\"\n", false, nil},
		{"line-ending backslash", "s = \"\"\"x \\\n" + b + "\n\"\"\"\n", false, nil},
		{"comment in a multi-line array", "a = [\n" + b + "\n1,\n" + e + "\n]\n", false, nil},
		{"string with a bracket", "a = \"[\"\n" + block, true, nil},
		{"begin without end", "a = 1\n" + b + "\nk = 2\n[mcp_servers.x]\n", false, []int{2}},
		{"end without begin", "a = 1\n" + e + "\n", false, []int{2}},
		{"end before begin", e + "\n" + b + "\n", false, []int{1}},
		{"two blocks", block + "a = 1\n" + block, false, []int{1, 3, 5}},
		{"begin twice", b + "\n" + b + "\n" + e + "\n", false, []int{1, 2}},
		{"end twice", block + e + "\n", false, []int{3, 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ok, err := findBlock([]byte(tt.text))
			var me *MarkerError
			switch {
			case tt.wantLines == nil && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.wantLines != nil && !errors.As(err, &me):
				t.Fatalf("err = %v, want a *MarkerError", err)
			case tt.wantLines != nil && !slices.Equal(me.Lines, tt.wantLines):
				t.Fatalf("lines = %v, want %v (%v)", me.Lines, tt.wantLines, err)
			case tt.wantLines != nil && !strings.Contains(err.Error(), fmt.Sprintf("line %d", tt.wantLines[len(tt.wantLines)-1])):
				t.Fatalf("message names no line: %v", err)
			case ok != tt.wantBlock:
				t.Fatalf("block found = %v, want %v", ok, tt.wantBlock)
			}
			out, _, err := MigrateCodex([]byte(tt.text), CodexInput{DefaultPermissions: DefaultPermissions})
			if tt.wantLines != nil {
				if !errors.As(err, &me) || out != nil {
					t.Fatalf("MigrateCodex = %q, %v; want a refusal", out, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("MigrateCodex: %v", err)
			}
			if !tt.wantBlock && !bytes.Contains(out, []byte(tt.text)) {
				t.Fatalf("user text not kept whole:\n%s", out)
			}
		})
	}
}

// TestManagedBlockRoundTrip covers the files users reported: what --remove
// gives back is the file as it was, and a second run is a no-op.
func TestManagedBlockRoundTrip(t *testing.T) {
	tests := map[string]string{
		"BOM":                  "\xef\xbb\xbfmodel = \"m\"\n[history]\npersistence = \"none\"\n",
		"no final newline":     "model = \"m\"",
		"CRLF, no final":       "model = \"m\"\r\n[t]\r\nx = 1",
		"BOM CRLF root only":   "\xef\xbb\xbfmodel = \"m\"\r\n",
		"trailing blanks":      "model = \"m\"   \n\t\n[t]  \nx = 1\t\n",
		"only a comment":       "# hi",
		"empty":                "",
		"string holding block": "s = '''\n" + BeginMarker + "\n'''\n",
	}
	in := CodexInput{DefaultPermissions: DefaultPermissions}
	for name, text := range tests {
		t.Run(name, func(t *testing.T) {
			out, _, err := MigrateCodex([]byte(text), in)
			if err != nil {
				t.Fatal(err)
			}
			back, removed, err := RemoveCodexBlock(out)
			if err != nil || !removed || string(back) != text {
				t.Fatalf("remove = %q, %v, %v; want %q\napplied:\n%q", back, removed, err, text, out)
			}
			again, _, err := MigrateCodex(out, in)
			if err != nil || !bytes.Equal(again, out) {
				t.Fatalf("second run:\n%q\nfirst:\n%q (%v)", again, out, err)
			}
			if strings.Contains(text, "\r\n") && bytes.Count(out, []byte("\n")) != bytes.Count(out, []byte("\r\n")) {
				t.Fatalf("block does not use CRLF:\n%q", out)
			}
		})
	}
}

// TestManagedBlockReplacedInPlace: an old block with other contents is
// replaced marker to marker; not one byte around it moves.
func TestManagedBlockReplacedInPlace(t *testing.T) {
	before := "# top\nmodel = \"m\"\n\n# my comment\n"
	after := "\n\n# about history\n[history]\npersistence = \"none\"\n"
	old := BeginMarker + "  \n[mcp_servers.old]\ncommand = \"old\"\n" + EndMarker + "\t\n"
	out, _, err := MigrateCodex([]byte(before+old+after), CodexInput{DefaultPermissions: DefaultPermissions})
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	if !strings.HasPrefix(s, before+BeginMarker+"\n") || !strings.HasSuffix(s, EndMarker+"\n"+after) || strings.Contains(s, "old") {
		t.Fatalf("not replaced in place:\n%s", s)
	}
}

// TestScannerAgreesWithParser: hand-picked lexing corners, checked against
// go-toml's own view of which comment lines are top-level.
func TestScannerAgreesWithParser(t *testing.T) {
	const b, e = BeginMarker, EndMarker
	for _, text := range []string{
		"a = '\\'\n" + b + "\n" + e + "\n",
		"a = \"\\\\\"\n" + b + "\n" + e + "\n",
		"a = \"\"\"\\\\\"\"\"\n" + b + "\n" + e + "\n",
		"a = \"\"\"\\  \n  " + b + "\n\"\"\"\n" + b + "\n" + e + "\n",
		"a = [ \"x\", # c\n" + b + "\n]\n" + e + "\n",
		"a = { b = [ \"]\" ] }\n" + b + "\n" + e + "\n",
		"[\"k]\".'[x'] # " + b + "\n" + b + "\n" + e + "\n",
		"a = ''''x'''\n" + b + "\n" + e + "\n",
		"a = ''''''\n" + b + "\n" + e + "\n",
		"a = \"\"\"\"\"\"\n" + b + "\n" + e + "\n",
		"a = \"\"\"\"\"x\"\"\"\n" + b + "\n" + e + "\n",
		"a = [[1,2],[\n3]]\n" + b + "\n" + e + "\n",
		"a = \"\"\"\n\"\"\\\"\"\"\"\n" + b + "\n" + e + "\n",
		"\t" + b + "\n" + e + "\r\n",
	} {
		if err := toml.Unmarshal([]byte(text), new(map[string]any)); err != nil {
			t.Errorf("case does not parse, fix the case: %v\n%q", err, text)
			continue
		}
		checkScannerAgreesWithParser(t, []byte(text))
	}
}
