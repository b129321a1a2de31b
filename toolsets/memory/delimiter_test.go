package memory_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/toolsets/memory"
)

// An entry holding the store's own separator line would be written as one
// entry and read back as two (or take a piece of its neighbour). Every
// write path refuses it; the file and the entry count stay as they were,
// in the original's terms (the file parsed as Hermes parses it).
func TestDelimiterInsideAnEntryIsRefused(t *testing.T) {
	cases := []struct {
		name string
		args map[string]any
	}{
		{"add with the separator line", map[string]any{"action": "add", "target": "memory", "content": "Deploy checklist:\n§\nrun the migration first"}},
		{"add with CR line ends", map[string]any{"action": "add", "target": "memory", "content": "Deploy checklist:\r§\rrun the migration first"}},
		{"add ending in a separator", map[string]any{"action": "add", "target": "memory", "content": "Deploy checklist:\n§"}},
		{"replace", map[string]any{"action": "replace", "target": "memory", "old_text": "make build", "content": "a\n§\nb"}},
		{"batch add", map[string]any{"action": "batch", "target": "memory", "operations": []any{
			map[string]any{"action": "add", "content": "first\n§\nsecond"}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := copyHome(t)
			path := filepath.Join(home, "memories", "MEMORY.md")
			before, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			h := newHarness(t, home)
			m, isErr := h.call(tc.args)
			if !isErr || !strings.Contains(m["error"].(string), "'§'") {
				t.Errorf("reply = %v (isError %v); want a refusal naming the separator", m, isErr)
			}
			after, _ := os.ReadFile(path)
			if string(after) != string(before) {
				t.Errorf("MEMORY.md changed:\n%q\nwant\n%q", after, before)
			}
			read, _ := h.call(map[string]any{"action": "read", "target": "memory"})
			if got := entries(read, "entries"); len(got) != len(fixtureMemory) {
				t.Errorf("read back %d entries %q; want %d", len(got), got, len(fixtureMemory))
			}
			if got := memory.Parse(string(after)); len(got) != len(fixtureMemory) {
				t.Errorf("the file parses as %d entries; want %d", len(got), len(fixtureMemory))
			}
		})
	}
}

// A '§' that is not alone on its line, or alone as the whole entry, is
// plain content and round-trips.
func TestSectionSignAsContentIsKept(t *testing.T) {
	for _, content := range []string{"Use § 4.2 of the spec", "§", "§\nnotes follow", "a §\n§ b"} {
		home := copyHome(t)
		h := newHarness(t, home)
		if m, isErr := h.call(map[string]any{"action": "add", "target": "memory", "content": content}); isErr {
			t.Fatalf("add %q refused: %v", content, m)
		}
		h.call(map[string]any{"action": "add", "target": "memory", "content": "last"})
		read, _ := h.call(map[string]any{"action": "read", "target": "memory"})
		got := entries(read, "entries")
		if len(got) != len(fixtureMemory)+2 || got[len(got)-2] != content {
			t.Errorf("after adding %q read back %q", content, got)
		}
	}
}
