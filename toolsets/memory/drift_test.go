package memory_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/toolsets/memory"
)

// layoutHome is a home whose MEMORY.md holds the bytes of one layout
// fixture, with the limit the layouts are judged against.
func layoutHome(t *testing.T, file string) (home, path string, data []byte) {
	t.Helper()
	home = t.TempDir()
	path = filepath.Join(home, "memories", "MEMORY.md")
	data, err := os.ReadFile(filepath.Join("testdata", "layouts", file))
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte("memory:\n  memory_char_limit: 600\n"), 0o644)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return home, path, data
}

// driftReply is the original's drift refusal for a backup at bak.
func driftReply(bak string) string {
	return `{"success":false,"error":"Refusing to write MEMORY.md: file on disk has content that wouldn't round-trip through the memory tool ` +
		`(likely added by the patch tool, a shell append, a manual edit, or a concurrent session). A snapshot was saved to ` + bak +
		`. Resolve the drift first — either rewrite the file as a clean §-delimited list of entries, or move the extra content out — ` +
		`then retry. This guard exists to prevent silent data loss (issue #26045).","drift_backup":"` + bak + `","remediation":"Open the .bak ` +
		`file, integrate the missing entries into the memory tool one at a time via memory(action=add, content=...), then remove or ` +
		`rewrite the original file to a clean state."}`
}

// TestDriftRule runs every layout through the tool: a file the original
// would refuse to rewrite is refused by replace, remove and batch, left
// byte for byte as it was, and copied (as the original reads it) to the
// .bak; add is never refused for drift and rewrites the file clean; reads
// and the snapshot work on any of them. A clean file takes every write,
// and what is written is, in the original's terms, a clean store.
func TestDriftRule(t *testing.T) {
	for _, l := range layouts {
		t.Run(l.file, func(t *testing.T) {
			home, path, data := layoutHome(t, l.file)
			h := newHarness(t, home)
			bak := path + ".bak.1700000000"

			m, isErr := h.call(map[string]any{"action": "read", "target": "memory"})
			if isErr || !slices.Equal(entries(m, "entries"), nonNilStrings(l.entries)) {
				t.Errorf("read: %v, want %q", m, l.entries)
			}
			snap, err := memory.Snapshot(home, "")
			if err != nil || (len(l.entries) > 0 && !strings.Contains(snap, l.entries[0])) {
				t.Errorf("snapshot: %v\n%s", err, snap)
			}

			first := "a"
			if len(l.entries) > 0 {
				first = l.entries[0]
			}
			writes := []map[string]any{
				{"action": "replace", "target": "memory", "old_text": first, "content": "replaced"},
				{"action": "remove", "target": "memory", "old_text": first},
				{"target": "memory", "operations": []any{op("add", "content", "new fact")}},
			}
			if l.drift {
				text, _ := origRead(data)
				for _, args := range writes {
					got, isErr := h.callJSON(args)
					if !isErr || string(got) != driftReply(bak) {
						t.Errorf("%v:\n got %s\nwant %s", args, got, driftReply(bak))
					}
					if after, _ := os.ReadFile(path); !bytes.Equal(after, data) {
						t.Fatalf("%v changed a drifted file: %q -> %q", args, data, after)
					}
					if saved, err := os.ReadFile(bak); err != nil || string(saved) != text {
						t.Errorf("backup = %q (%v), want the text as the original reads it: %q", saved, err, text)
					}
				}
				names := dirNames(t, filepath.Dir(path))
				if want := []string{"MEMORY.md", "MEMORY.md.bak.1700000000", "MEMORY.md.lock"}; !slices.Equal(names, want) {
					t.Errorf("memories holds %q, want %q", names, want)
				}
				// Appending loses nothing, so add goes ahead and writes the
				// store clean (unless the store is simply full).
				m, isErr := h.call(map[string]any{"action": "add", "target": "memory", "content": "new fact"})
				if l.file == "oversized.md" {
					if !isErr || !strings.HasPrefix(m["error"].(string), "Memory at 972/600 chars.") {
						t.Errorf("add to a full store: %v", m)
					}
					return
				}
				if isErr {
					t.Fatalf("add to a drifted file: %v", m)
				}
				checkOriginal(t, path, layoutLimit, append(slices.Clone(l.entries), "new fact"))
				return
			}
			for i, args := range writes {
				if i > 0 {
					os.WriteFile(path, data, 0o644)
				}
				if len(l.entries) == 0 && i < 2 {
					continue // nothing to replace or remove
				}
				if m, isErr := h.call(args); isErr {
					t.Errorf("%v on a clean file: %v", args, m)
				}
				var want []string
				switch i {
				case 0:
					want = append([]string{"replaced"}, l.entries[1:]...)
				case 1:
					want = l.entries[1:]
				case 2:
					want = append(slices.Clone(l.entries), "new fact")
					if l.file == "section-sign-at-eof.md" {
						// "a\n§" then the delimiter reads back as a
						// delimiter: the original's known #54403, same here.
						want = []string{"a", "§\nnew fact"}
					}
				}
				checkOriginal(t, path, layoutLimit, want)
			}
			if _, err := os.Stat(bak); err == nil {
				t.Error("a clean file was backed up")
			}
		})
	}
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, de := range des {
		out = append(out, de.Name())
	}
	return out
}

// A file that is not UTF-8 is never treated as an empty store: every
// write, add included, is refused with the original's message and the
// bytes are kept; read says why; the snapshot leaves the store out.
func TestUnreadableFileRefusesEveryWrite(t *testing.T) {
	home, path, data := layoutHome(t, "invalid-utf8.md")
	h := newHarness(t, home)
	const want = `{"success":false,"error":"Refusing to write MEMORY.md: the file exists on disk but could not be read right now ` +
		`(temporarily locked by another program, a permission change, invalid/corrupt text encoding, or a filesystem error). ` +
		`Treating an unreadable file as empty and saving would wipe existing memory, so the write is refused. Nothing was ` +
		`changed — retry in a moment."}`
	for _, args := range []map[string]any{
		{"action": "add", "target": "memory", "content": "New entry."},
		{"action": "replace", "target": "memory", "old_text": "memory", "content": "x"},
		{"action": "remove", "target": "memory", "old_text": "memory"},
		{"target": "memory", "operations": []any{op("add", "content", "x")}},
	} {
		if got, isErr := h.callJSON(args); !isErr || string(got) != want {
			t.Errorf("%v:\n got %s\nwant %s", args, got, want)
		}
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, data) {
		t.Fatalf("an unreadable file was rewritten: %q", after)
	}
	if names := dirNames(t, filepath.Dir(path)); !slices.Equal(names, []string{"MEMORY.md", "MEMORY.md.lock"}) {
		t.Errorf("memories holds %q", names)
	}
	m, isErr := h.call(map[string]any{"action": "read", "target": "memory"})
	if !isErr || !strings.Contains(m["error"].(string), "not valid UTF-8") {
		t.Errorf("read: %v", m)
	}
	if snap, err := memory.Snapshot(home, ""); strings.Contains(snap, "MEMORY (") || err == nil || !strings.Contains(err.Error(), "not valid UTF-8") {
		t.Errorf("snapshot = %q, %v", snap, err)
	}
}

// What the original wrote and what this tool writes read the same under
// both rules: a file in the original's bytes takes our write and comes out
// in the original's bytes; a file in the layout this tool used to write
// (a final newline) is clean to both.
func TestRoundTripBetweenImplementations(t *testing.T) {
	entries := []string{"first fact", "second\nfact on two lines", "§ third"}
	for _, data := range [][]byte{origWrite(entries), append(origWrite(entries), '\n')} {
		home, path := batchHome(t, nil)
		os.WriteFile(path, data, 0o644)
		st := &memory.Store{Dir: filepath.Dir(path)}
		got, err := st.Read(memory.TargetMemory)
		if err != nil || !slices.Equal(got, entries) {
			t.Fatalf("Read(%q) = %q, %v", data, got, err)
		}
		text, _ := origRead(data)
		if origDrift(text, 100) {
			t.Errorf("%q is drift to the original", data)
		}
		if m, isErr := newHarness(t, home).call(map[string]any{"target": "memory", "operations": []any{op("replace", "old_text", "third", "content", "§ third, amended")}}); isErr {
			t.Fatalf("batch on %q: %v", data, m)
		}
		checkOriginal(t, path, 100, []string{"first fact", "second\nfact on two lines", "§ third, amended"})
	}
}

// A '§' line at the start of an entry, or a '§' entry, is content that
// round-trips in the original's terms; content holding the whole delimiter
// is refused (TestDelimiterInsideAnEntryIsRefused).
func TestDelimiterInContentAsTheOriginal(t *testing.T) {
	tests := []struct {
		content string
		want    []string
	}{
		{"§\nfoo", []string{"prev", "§\nfoo"}},
		{"§", []string{"prev", "§"}},
	}
	for _, tt := range tests {
		home, path := batchHome(t, []string{"prev"})
		if m, isErr := newHarness(t, home).call(map[string]any{"action": "add", "target": "memory", "content": tt.content}); isErr {
			t.Fatal(m)
		}
		data, _ := os.ReadFile(path)
		if want := origWrite([]string{"prev", tt.content}); !bytes.Equal(data, want) {
			t.Errorf("file = %q, want %q", data, want)
		}
		text, _ := origRead(data)
		got, err := (&memory.Store{Dir: filepath.Dir(path)}).Read(memory.TargetMemory)
		if err != nil || !slices.Equal(got, tt.want) || !slices.Equal(origDedupe(origParse(text)), tt.want) {
			t.Errorf("%q reads back as %q (original: %q), want %q", tt.content, got, origParse(text), tt.want)
		}
	}
}
