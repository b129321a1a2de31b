package memory_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/toolsets/memory"
)

// randomContent draws from the characters that matter to the file format:
// the delimiter's pieces, every kind of whitespace Python strips (the
// information separators and Unicode spaces Go's TrimSpace would treat
// differently), and plain and non-ASCII letters.
func randomContent(rng *rand.Rand) string {
	pool := []rune("ab Z-:\t\n§é€\u3000\u00a0\u2028\x1c\x1d\x1e\x1f\x0b\x0c\u0085")
	r := make([]rune, 1+rng.IntN(24))
	for i := range r {
		r[i] = pool[rng.IntN(len(pool))]
	}
	return string(r)
}

// holdable says whether the original's file format can hold entry among
// others: it does not contain the delimiter and does not end in "\n§",
// which the next delimiter would complete (issue #54403: the original
// writes such content anyway, and so does this tool; see
// TestDelimiterInContentAsTheOriginal).
func holdable(entry string) bool {
	return !strings.Contains(entry, "\n§\n") && !strings.HasSuffix(entry, "\n§")
}

// For random entries, added one by one or as a batch, the file written is,
// in the original's terms, a clean store holding exactly those entries
// (stripped, deduplicated, in order), in the original's bytes; and Python,
// running the original's reading, agrees.
func TestWrittenEntriesRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(20260101, 7))
	pyDir := t.TempDir()
	wants := map[string][]string{}
	const limit = 1 << 20
	for iter := range 200 {
		dir := filepath.Join(t.TempDir(), "memories")
		st := &memory.Store{Dir: dir, Limits: map[string]int{memory.TargetMemory: limit}}
		var want []string
		var ops []memory.Op
		for range rng.IntN(9) {
			c := randomContent(rng)
			e := origStrip(c)
			if !holdable(e) {
				continue
			}
			if e != "" && !slices.Contains(want, e) {
				want = append(want, e)
			}
			if iter%2 == 0 {
				out, err := st.Add(context.Background(), memory.TargetMemory, c)
				if err != nil || out.OK != (e != "") {
					t.Fatalf("Add(%q) = %+v, %v", c, out, err)
				}
			} else if e != "" {
				ops = append(ops, memory.Op{Action: "add", Content: c})
			}
		}
		if len(ops) > 0 {
			if out, err := st.Batch(context.Background(), memory.TargetMemory, ops); err != nil || !out.OK {
				t.Fatalf("Batch(%+v) = %+v, %v", ops, out, err)
			}
		}
		path := filepath.Join(dir, "MEMORY.md")
		if len(want) == 0 {
			continue // nothing was written
		}
		checkOriginal(t, path, limit, want)
		got, err := st.Read(memory.TargetMemory)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("Read = %q, %v; want %q", got, err, want)
		}
		data, _ := os.ReadFile(path)
		name := fmt.Sprintf("%03d.md", iter)
		os.WriteFile(filepath.Join(pyDir, name), data, 0o644)
		wants[name] = want
		if t.Failed() {
			t.Fatalf("iteration %d", iter)
		}
	}
	py := pythonReading(t, pyDir, limit)
	if py == nil {
		return
	}
	for name, want := range wants {
		got := py[name]
		if !got.OK || got.Drift || !slices.Equal(origDedupe(got.Parsed), want) {
			t.Errorf("%s: Python reads %+v, want %q and no drift", name, got, want)
		}
	}
}
