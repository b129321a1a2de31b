package unidiff

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestDiffGolden(t *testing.T) {
	tests := []struct {
		name, a, b, want string
	}{
		{"equal", "x\n", "x\n", ""},
		{"insert in middle", "a\nb\nc\n", "a\nb\nNEW\nc\n",
			"--- old\n+++ new\n@@ -1,3 +1,4 @@\n a\n b\n+NEW\n c\n"},
		{"from empty", "", "a\n", "--- old\n+++ new\n@@ -0,0 +1 @@\n+a\n"},
		{"no final newline", "a", "a\n", "--- old\n+++ new\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n"},
	}
	for _, tt := range tests {
		if got := Diff("old", "new", []byte(tt.a), []byte(tt.b)); got != tt.want {
			t.Errorf("%s:\ngot:\n%s\nwant:\n%s", tt.name, got, tt.want)
		}
	}
}

// Random edits must produce diffs that git applies to exactly the new text.
func TestDiffAppliesWithGit(t *testing.T) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Fatalf("git is needed to check diffs: %v", err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"alpha", "beta", "gamma", "delta", "[table]", "key = 1", ""}
	for iter := range 150 {
		var a []string
		for range r.IntN(40) {
			a = append(a, words[r.IntN(len(words))])
		}
		b := append([]string(nil), a...)
		for range r.IntN(6) {
			switch pos := r.IntN(len(b) + 1); r.IntN(3) {
			case 0:
				b = append(b[:pos], append([]string{"inserted"}, b[pos:]...)...)
			case 1:
				if pos < len(b) {
					b = append(b[:pos], b[pos+1:]...)
				}
			case 2:
				if pos < len(b) {
					b[pos] = "changed"
				}
			}
		}
		at, bt := strings.Join(a, "\n"), strings.Join(b, "\n")
		if r.IntN(2) == 0 && at != "" {
			at += "\n"
		}
		if r.IntN(2) == 0 && bt != "" {
			bt += "\n"
		}
		d := Diff("a/f", "b/f", []byte(at), []byte(bt))
		if at == bt {
			if d != "" {
				t.Fatalf("equal texts gave a diff")
			}
			continue
		}
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "f"), []byte(at), 0o644)
		os.WriteFile(filepath.Join(dir, "p.diff"), []byte(d), 0o644)
		cmd := exec.Command(gitBin, "apply", "--unsafe-paths", "p.diff")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("iteration %d: git apply: %v\n%s\n--- diff\n%s--- a\n%q", iter, err, out, d, at)
		}
		got, _ := os.ReadFile(filepath.Join(dir, "f"))
		if string(got) != bt {
			t.Fatalf("iteration %d: applying the diff gave %q, want %q\n%s", iter, got, bt, d)
		}
	}
}
