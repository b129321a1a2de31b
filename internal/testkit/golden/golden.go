// Package golden is what the golden-file tests share: the one -update flag,
// so a single command regenerates every golden file in the repository, the
// compare-or-rewrite step, and the JSON form golden files hold. JSON is
// pretty-printed with sorted keys so that a changed field reads as one
// changed line in a review.
package golden

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/hermes-go/hermes/internal/unidiff"
)

// Command regenerates every golden file; failures name it so the reader
// knows how to accept an intended change.
const Command = "make docs"

// A test binary may register a flag name only once, so the flag lives here
// and every package with golden files imports it.
var update = flag.Bool("update", false, "rewrite golden files and transcripts from the current output ("+Command+" does it for every package)")

// Update reports whether the test run was asked to rewrite golden files
// rather than compare with them.
func Update() bool { return *update }

// JSON encodes v the way golden files hold JSON: two-space indent, no HTML
// escaping (a golden file is read by people, not pasted into a page), a
// final newline. Struct fields keep their declaration order and map keys
// are sorted, so the output is deterministic.
func JSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("golden: encode JSON: %w", err)
	}
	// A MarshalJSON method that calls json.Marshal escapes <, > and &
	// whatever the encoder is told, so they are unescaped here instead.
	return unescapeHTML(buf.Bytes()), nil
}

// unescapeHTML turns the \u003c, \u003e and \u0026 escapes of valid JSON
// back into the characters. Every backslash in valid JSON starts an
// escape, so walking escape by escape never mistakes an escaped backslash
// followed by "u003c" for one.
func unescapeHTML(b []byte) []byte {
	out := b[:0:0]
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 == len(b) {
			out = append(out, b[i])
			continue
		}
		if i+6 <= len(b) && b[i+1] == 'u' {
			switch string(b[i+2 : i+6]) {
			case "003c":
				out, i = append(out, '<'), i+5
				continue
			case "003e":
				out, i = append(out, '>'), i+5
				continue
			case "0026":
				out, i = append(out, '&'), i+5
				continue
			}
		}
		out, i = append(out, b[i], b[i+1]), i+1
	}
	return out
}

// Canonical re-encodes each JSON value in data (one value, or a stream such
// as JSON Lines) in the form JSON returns, with object keys sorted and
// numbers kept as written, so the result depends on the content alone and
// not on the encoder that produced it. Values are separated by a blank
// line. Empty input gives empty output.
func Canonical(data []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out []byte
	for {
		var v any
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("golden: decode JSON value at offset %d: %w", dec.InputOffset(), err)
		}
		b, err := JSON(v)
		if err != nil {
			return nil, err
		}
		if out != nil {
			out = append(out, '\n')
		}
		out = append(out, b...)
	}
}

// File compares got with the content of the file at path and fails t with
// a diff when they differ; under -update it writes got to the file instead.
func File(t testing.TB, path string, got []byte) {
	t.Helper()
	if err := checkFile(path, got, Update()); err != nil {
		t.Error(err)
	}
}

func checkFile(path string, got []byte, update bool) error {
	want, err := os.ReadFile(path)
	if update {
		if err == nil && bytes.Equal(want, got) {
			return nil
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("golden: %w", err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			return fmt.Errorf("golden: %w", err)
		}
		return nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s does not exist; run `%s` to create it", path, Command)
	}
	if err != nil {
		return fmt.Errorf("golden: %w", err)
	}
	if !bytes.Equal(want, got) {
		return differs(path, "", want, got)
	}
	return nil
}

// Archive checks the sections of the txtar archive ar, read from path, that
// a test produces. owned names them in the order they are appended when
// missing; each one in got must hold exactly those bytes, and each one
// missing from got must be absent from the archive (a case that now fails
// has no output section, and the other way round). Other sections, the
// test's input, are left alone. Under -update the file is rewritten so
// that all of this holds.
func Archive(t testing.TB, path string, ar *txtar.Archive, owned []string, got map[string][]byte) {
	t.Helper()
	if err := checkArchive(path, ar, owned, got, Update()); err != nil {
		t.Error(err)
	}
}

func checkArchive(path string, ar *txtar.Archive, owned []string, got map[string][]byte, update bool) error {
	for name := range got {
		if !slices.Contains(owned, name) {
			return fmt.Errorf("golden: %s: section %q is not among the owned sections %q", path, name, owned)
		}
	}
	if update {
		before := txtar.Format(ar)
		for _, name := range owned {
			if data, ok := got[name]; ok {
				setSection(ar, name, data)
			} else {
				ar.Files = slices.DeleteFunc(ar.Files, func(f txtar.File) bool { return f.Name == name })
			}
		}
		after := txtar.Format(ar)
		if bytes.Equal(before, after) {
			return nil
		}
		if err := os.WriteFile(path, after, 0o644); err != nil {
			return fmt.Errorf("golden: %w", err)
		}
		return nil
	}
	var errs []error
	for _, name := range owned {
		want, inFile := Section(ar, name)
		have, produced := got[name]
		switch {
		case produced && !inFile:
			errs = append(errs, fmt.Errorf("%s has no -- %s -- section; run `%s` to add it\n%s", path, name, Command, have))
		case !produced && inFile:
			errs = append(errs, fmt.Errorf("%s has a -- %s -- section the test no longer produces; run `%s` to drop it", path, name, Command))
		case produced && !bytes.Equal(want, have):
			errs = append(errs, differs(path, name, want, have))
		}
	}
	return errors.Join(errs...)
}

// differs reports a golden mismatch as a unified diff from the file to the
// current output, which is the change -update would make.
func differs(path, section string, want, got []byte) error {
	label := path
	if section != "" {
		label = fmt.Sprintf("%s (-- %s --)", path, section)
	}
	return fmt.Errorf("%s differs from the current output; if the change is intended, run `%s` and review the diff\n%s",
		label, Command, unidiff.Diff(label, "current output", want, got))
}

// Section returns the data of the archive's section called name.
func Section(ar *txtar.Archive, name string) ([]byte, bool) {
	for _, f := range ar.Files {
		if f.Name == name {
			return f.Data, true
		}
	}
	return nil, false
}

// setSection replaces the data of the section called name, appending the
// section when the archive has none.
func setSection(ar *txtar.Archive, name string, data []byte) {
	for i := range ar.Files {
		if ar.Files[i].Name == name {
			ar.Files[i].Data = data
			return
		}
	}
	ar.Files = append(ar.Files, txtar.File{Name: name, Data: data})
}
