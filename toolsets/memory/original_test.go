package memory_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// The original's rules, restated here independently of the package under
// test, so a check "in the original's terms" does not lean on the code it
// checks: how tools/memory_tool_store.py (main, 02f2e45e) reads a memory
// file (utf-8-sig, universal newlines, strict decoding), parses it, decides
// drift, and writes entries.

// pythonSpace is every code point Python 3's str.isspace() accepts, i.e.
// what its strip() removes (listed by running Python 3.11).
var pythonSpace = map[rune]bool{
	0x09: true, 0x0a: true, 0x0b: true, 0x0c: true, 0x0d: true, 0x1c: true, 0x1d: true, 0x1e: true, 0x1f: true,
	0x20: true, 0x85: true, 0xa0: true, 0x1680: true, 0x2000: true, 0x2001: true, 0x2002: true, 0x2003: true,
	0x2004: true, 0x2005: true, 0x2006: true, 0x2007: true, 0x2008: true, 0x2009: true, 0x200a: true,
	0x2028: true, 0x2029: true, 0x202f: true, 0x205f: true, 0x3000: true,
}

func origStrip(s string) string {
	r := []rune(s)
	i, j := 0, len(r)
	for i < j && pythonSpace[r[i]] {
		i++
	}
	for j > i && pythonSpace[r[j-1]] {
		j--
	}
	return string(r[i:j])
}

// origRead is path.read_text(encoding="utf-8-sig"): one leading BOM
// dropped, strict UTF-8, and text mode's universal newlines.
func origRead(data []byte) (string, bool) {
	data = bytes.TrimPrefix(data, []byte{0xef, 0xbb, 0xbf})
	if !utf8.Valid(data) {
		return "", false
	}
	var b strings.Builder
	for i := 0; i < len(data); i++ {
		switch {
		case data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n':
			b.WriteByte('\n')
			i++
		case data[i] == '\r':
			b.WriteByte('\n')
		default:
			b.WriteByte(data[i])
		}
	}
	return b.String(), true
}

const origDelimiter = "\n§\n"

// origParse is _parse_entries (duplicates kept).
func origParse(text string) []string {
	var out []string
	for _, x := range strings.Split(text, origDelimiter) {
		if e := origStrip(x); e != "" {
			out = append(out, e)
		}
	}
	return out
}

// origDedupe is list(dict.fromkeys(entries)).
func origDedupe(entries []string) []string {
	var out []string
	for _, e := range entries {
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}

// origDrift is _detect_external_drift's predicate.
func origDrift(text string, limit int) bool {
	parsed := origParse(text)
	if origStrip(text) == "" {
		return false
	}
	if origStrip(text) != strings.Join(parsed, origDelimiter) {
		return true
	}
	for _, e := range parsed {
		if utf8.RuneCountInString(e) > limit {
			return true
		}
	}
	return false
}

// origWrite is _write_file's content.
func origWrite(entries []string) []byte { return []byte(strings.Join(entries, origDelimiter)) }

// checkOriginal asserts that the file at path is, in the original's terms,
// a clean store holding want: readable, drift-free, parsing to want, and
// byte for byte what the original writes for want.
func checkOriginal(t *testing.T, path string, limit int, want []string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text, ok := origRead(data)
	if !ok {
		t.Fatalf("%s: the original cannot read it: %q", path, data)
	}
	if origDrift(text, limit) {
		t.Errorf("%s: the original sees drift in %q", path, data)
	}
	if got := origDedupe(origParse(text)); !slices.Equal(got, want) {
		t.Errorf("%s: the original parses %q, want %q", path, got, want)
	}
	if !bytes.Equal(data, origWrite(want)) {
		t.Errorf("%s = %q, want the original's bytes %q", path, data, origWrite(want))
	}
}

// layout is one fixture file in testdata/layouts: bytes the original
// writes or finds in a memory file, with how it reads them (limit 600).
type layout struct {
	file    string
	drift   bool
	entries []string // parsed and deduplicated, as the live list
	split   []string // parsed, duplicates kept, when they differ
}

var layouts = []layout{
	{file: "clean.md", entries: []string{"a", "b"}},
	{file: "trailing-newline.md", entries: []string{"a", "b"}},
	{file: "outer-whitespace.md", entries: []string{"a", "b"}},
	{file: "padded-entry.md", drift: true, entries: []string{"a", "b"}},
	{file: "indented-entry.md", drift: true, entries: []string{"a", "b"}},
	{file: "blank-before-delimiter.md", drift: true, entries: []string{"a", "b"}},
	{file: "blank-after-delimiter.md", drift: true, entries: []string{"a", "b"}},
	{file: "empty-entry.md", drift: true, entries: []string{"a", "b"}},
	{file: "trailing-delimiter.md", drift: true, entries: []string{"a"}},
	{file: "leading-delimiter.md", drift: true, entries: []string{"a"}},
	{file: "section-sign-at-eof.md", entries: []string{"a\n§"}},
	{file: "section-sign-first.md", entries: []string{"§\na"}},
	{file: "duplicate.md", entries: []string{"a"}, split: []string{"a", "a"}},
	{file: "blank-line-inside-entry.md", entries: []string{"a\n\nb", "c"}},
	{file: "crlf.md", entries: []string{"a", "b"}},
	{file: "lone-cr.md", entries: []string{"a", "b"}},
	{file: "bom.md", entries: []string{"a", "b"}},
	{file: "info-separator-padded.md", drift: true, entries: []string{"a", "b"}},
	{file: "info-separator-outside.md", entries: []string{"a", "b"}},
	{file: "nbsp-padded.md", drift: true, entries: []string{"a", "b"}},
	{file: "empty.md"},
	{file: "whitespace-only.md"},
	{file: "oversized.md", drift: true, entries: []string{"short note", strings.TrimSuffix(strings.Repeat("pasted log line\n", 60), "\n")}},
}

// layoutLimit is the character limit the layouts are judged against.
const layoutLimit = 600

// The table above is the original's own reading of the fixtures, and the
// restated rules agree with it: checked with Python itself when it is
// installed, so neither the table nor the restatement can drift from the
// original's str.strip() and text-mode reading.
func TestLayoutsAreTheOriginalsReading(t *testing.T) {
	for _, l := range layouts {
		data, err := os.ReadFile(filepath.Join("testdata", "layouts", l.file))
		if err != nil {
			t.Fatal(err)
		}
		text, ok := origRead(data)
		if !ok {
			t.Fatalf("%s: unreadable", l.file)
		}
		split := l.split
		if split == nil {
			split = l.entries
		}
		if got := origParse(text); !slices.Equal(got, split) || origDrift(text, layoutLimit) != l.drift {
			t.Errorf("%s: restated rules give %q drift=%v, table says %q drift=%v", l.file, got, origDrift(text, layoutLimit), split, l.drift)
		}
	}
	py := pythonReading(t, filepath.Join("testdata", "layouts"), layoutLimit)
	if py == nil {
		return
	}
	for _, l := range layouts {
		got, ok := py[l.file]
		split := l.split
		if split == nil {
			split = l.entries
		}
		if !ok || !got.OK || got.Drift != l.drift || !slices.Equal(got.Parsed, split) {
			t.Errorf("%s: Python reads %+v, table says %q drift=%v", l.file, got, split, l.drift)
		}
	}
	if got := py["invalid-utf8.md"]; got.OK {
		t.Errorf("invalid-utf8.md: Python read it: %+v", got)
	}
}

// pyResult is how Python, running the original's reading and rules,
// sees one file.
type pyResult struct {
	OK     bool     `json:"ok"`
	Parsed []string `json:"parsed"`
	Drift  bool     `json:"drift"`
}

// pythonScript restates the original's read, parse and drift predicate in
// Python, so Python's own str.strip() and text-mode newlines judge.
const pythonScript = `
import json, os, sys
D = "\n\u00a7\n"
d, limit = sys.argv[1], int(sys.argv[2])
out = {}
for name in sorted(os.listdir(d)):
    p = os.path.join(d, name)
    if not name.endswith(".md"):
        continue
    try:
        raw = open(p, encoding="utf-8-sig").read()
    except (OSError, UnicodeDecodeError):
        out[name] = {"ok": False, "parsed": [], "drift": False}
        continue
    parsed = [e for e in (x.strip() for x in raw.split(D)) if e]
    clean = not raw.strip() or (raw.strip() == D.join(parsed) and max(map(len, parsed), default=0) <= limit)
    out[name] = {"ok": True, "parsed": parsed, "drift": not clean}
print(json.dumps(out))
`

// pythonReading runs pythonScript over dir, or returns nil (after saying
// so) when no Python 3 is installed.
func pythonReading(t *testing.T, dir string, limit int) map[string]pyResult {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Log("python3 not installed: the check against Python's own reading is skipped")
		return nil
	}
	cmd := exec.Command(py, "-c", pythonScript, dir, strconv.Itoa(limit))
	cmd.Env = append(os.Environ(), "PYTHONIOENCODING=utf-8", "PYTHONUTF8=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	var res map[string]pyResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("python3 output: %v\n%s", err, out)
	}
	return res
}
