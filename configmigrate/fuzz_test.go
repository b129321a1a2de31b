package configmigrate

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// corpus reads testdata/corpus/*.toml: config.toml files as people write
// them. Those named refuse_* have broken marker lines and must be refused.
func corpus(tb testing.TB) map[string][]byte {
	tb.Helper()
	files, err := filepath.Glob("testdata/corpus/*.toml")
	if err != nil || len(files) < 25 {
		tb.Fatalf("corpus: %d files, %v", len(files), err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".toml")] = b
	}
	return out
}

// Mutations, chosen by the low bits of sel; bits 4-5 pick the input and
// bits 6-7 splice marker lines in at line pos.
const (
	mutBOM = 1 << iota
	mutCRLF
	mutNoFinalNewline
	mutTrailingBlanks
)

// mutate applies the mutations users' files show: a BOM, CRLF, no final
// newline, blanks at line ends, and marker lines where they do not belong.
func mutate(doc []byte, sel uint8, pos uint16) []byte {
	doc = bytes.Clone(doc)
	if sel&mutTrailingBlanks != 0 {
		doc = bytes.ReplaceAll(doc, []byte("\r\n"), []byte("\n"))
		doc = bytes.ReplaceAll(doc, []byte("\n"), []byte(" \t\n"))
	}
	if splice := sel >> 6; splice != 0 {
		lines := bytes.SplitAfter(doc, []byte("\n"))
		at := int(pos) % (len(lines) + 1)
		ins := []string{"", BeginMarker + "\n", EndMarker + "\n", BeginMarker + "\n[mcp_servers.spliced]\ncommand = \"s\"\n" + EndMarker + "\n"}[splice]
		if at > 0 && !bytes.HasSuffix(lines[at-1], []byte("\n")) {
			ins = "\n" + ins
		}
		doc = bytes.Join(spliceLines(lines[:at], []byte(ins), lines[at:]), nil)
	}
	if sel&mutCRLF != 0 {
		doc = bytes.ReplaceAll(doc, []byte("\r\n"), []byte("\n"))
		doc = bytes.ReplaceAll(doc, []byte("\n"), []byte("\r\n"))
	}
	if sel&mutNoFinalNewline != 0 {
		doc = bytes.TrimSuffix(doc, []byte("\n"))
		doc = bytes.TrimSuffix(doc, []byte("\r"))
	}
	if sel&mutBOM != 0 && !bytes.HasPrefix(doc, bom) {
		doc = append(bytes.Clone(bom), doc...)
	}
	return doc
}

func spliceLines(a [][]byte, mid []byte, b [][]byte) [][]byte {
	out := append([][]byte{}, a...)
	return append(append(out, mid), b...)
}

// fuzzInput picks what the block holds: permissions only, the full set,
// nothing, or servers and plugins without permissions.
func fuzzInput(sel uint8) CodexInput {
	tools := HermesToolsServer(HermesToolsOptions{Command: "/usr/local/bin/hermes-tools-mcp", HermesHome: "/h", EnvVars: []string{"A"}})
	servers := []Server{{Name: "web", URL: "https://example.com/mcp"}, {Name: "github", Command: "npx", Args: []string{"-y", "gh"}}}
	plugins := []Plugin{{Name: "github", Enabled: true}, {Name: "x", Marketplace: "lab"}}
	switch (sel >> 4) & 3 {
	case 0:
		return CodexInput{DefaultPermissions: DefaultPermissions}
	case 1:
		return CodexInput{DefaultPermissions: DefaultPermissions, HermesTools: &tools, Servers: servers, Plugins: plugins}
	case 2:
		return CodexInput{}
	default:
		return CodexInput{Servers: servers, Plugins: plugins}
	}
}

var lineNumber = regexp.MustCompile(`line \d+`)

// checkManagedBlock checks the promises about the block on one document.
// It reports whether apply succeeded.
func checkManagedBlock(t *testing.T, doc []byte, in CodexInput) bool {
	t.Helper()
	checkScannerAgreesWithParser(t, bytes.TrimPrefix(doc, bom))
	out, _, err := MigrateCodex(doc, in)
	if err != nil {
		if !lineNumber.MatchString(err.Error()) {
			t.Fatalf("refusal names no line: %v\n--- input\n%q", err, doc)
		}
		return false
	}
	var m map[string]any
	if err := toml.Unmarshal(bytes.TrimPrefix(out, bom), &m); err != nil {
		t.Fatalf("result does not parse: %v\n--- input\n%q\n--- output\n%q", err, doc, out)
	}
	user, removed, err := RemoveCodexBlock(out)
	if err != nil || !removed {
		t.Fatalf("remove after apply: removed=%v err=%v\n--- output\n%q", removed, err, out)
	}
	orig, had, err := RemoveCodexBlock(doc)
	if err != nil {
		t.Fatalf("remove on the input failed though apply succeeded: %v", err)
	}
	if !had && !bytes.Equal(orig, doc) {
		t.Fatalf("remove changed a file without a block:\n%q\n%q", doc, orig)
	}
	if !bytes.Equal(user, orig) {
		t.Fatalf("bytes outside the block changed:\n--- input\n%q\n--- remove(input)\n%q\n--- remove(apply(input))\n%q", doc, orig, user)
	}
	if d, _ := splitDocument(doc); d.inPlace {
		pre := len(d.bom) + d.span.begin
		post := len(d.text) - d.span.end
		if !bytes.Equal(out[:pre], doc[:pre]) || !bytes.Equal(out[len(out)-post:], doc[len(doc)-post:]) {
			t.Fatalf("in-place replacement touched bytes around the markers:\n%q\n%q", doc, out)
		}
	}
	again, rep, err := MigrateCodex(out, in)
	if err != nil || !bytes.Equal(again, out) || rep.Changed {
		t.Fatalf("apply twice differs from once (err %v):\n--- once\n%q\n--- twice\n%q", err, out, again)
	}
	return true
}

// TestManagedBlockCorpus runs every corpus file through every mutation
// and input: files with sound markers apply, refuse_* files are refused
// with a *MarkerError, and the promises hold throughout.
func TestManagedBlockCorpus(t *testing.T) {
	for name, doc := range corpus(t) {
		t.Run(name, func(t *testing.T) {
			for sel := range uint8(64) {
				in := fuzzInput(sel)
				mut := mutate(doc, sel, 0)
				ok := checkManagedBlock(t, mut, in)
				if strings.HasPrefix(name, "refuse_") {
					_, _, err := MigrateCodex(mut, in)
					if me := (*MarkerError)(nil); !errors.As(err, &me) {
						t.Fatalf("sel %d: err = %v, want a *MarkerError", sel, err)
					}
				} else if !ok {
					_, _, err := MigrateCodex(mut, in)
					t.Fatalf("sel %d: %v\n%q", sel, err, mut)
				}
			}
		})
	}
}

// TestManagedBlockSpliced splices marker lines into every corpus file at
// every line: wherever they land, the promises hold or the run is refused
// naming a line.
func TestManagedBlockSpliced(t *testing.T) {
	for name, doc := range corpus(t) {
		t.Run(name, func(t *testing.T) {
			n := uint16(bytes.Count(doc, []byte("\n")) + 1)
			for pos := range n + 1 {
				for splice := uint8(1); splice < 4; splice++ {
					sel := splice<<6 | uint8(pos)&0x3f
					checkManagedBlock(t, mutate(doc, sel, pos), fuzzInput(sel))
				}
			}
		})
	}
}

// FuzzManagedBlock: generated and mutated config.toml documents. The
// fuzzer mutates the corpus bytes itself; sel and pos add the mutations
// users' files show.
func FuzzManagedBlock(f *testing.F) {
	for _, doc := range corpus(f) {
		for _, sel := range []uint8{0, mutCRLF | mutBOM, mutNoFinalNewline | 1<<4, mutTrailingBlanks | 3<<6, 1<<6 | 2<<4, 2 << 6} {
			f.Add(doc, sel, uint16(3))
		}
	}
	f.Fuzz(func(t *testing.T, doc []byte, sel uint8, pos uint16) {
		checkManagedBlock(t, mutate(doc, sel, pos), fuzzInput(sel))
	})
}

// checkScannerAgreesWithParser: on a document that parses, the line
// scanner finds a marker exactly where go-toml sees a whole-line comment
// at the top level holding the marker text, so the scanner's view of
// strings, escapes and arrays is TOML's.
func checkScannerAgreesWithParser(t *testing.T, text []byte) {
	t.Helper()
	var fromParser []int
	p := unstable.Parser{KeepComments: true}
	p.Reset(text)
	for p.NextExpression() {
		e := p.Expression()
		if e.Kind != unstable.Comment {
			continue
		}
		off := int(e.Raw.Offset)
		c := string(bytes.TrimRight(e.Data, " \t\r"))
		if (off == 0 || text[off-1] == '\n') && (c == BeginMarker || c == EndMarker) {
			fromParser = append(fromParser, off)
		}
	}
	if p.Error() != nil {
		return
	}
	var fromScanner []int
	for _, l := range scanLines(text) {
		if markerOf(text, l) != notMarker {
			fromScanner = append(fromScanner, l.start)
		}
	}
	if !slices.Equal(fromParser, fromScanner) {
		t.Fatalf("marker lines: parser sees them at offsets %v, the scanner at %v\n%q", fromParser, fromScanner, text)
	}
}
