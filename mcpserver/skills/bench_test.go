package skills

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/hermes-go/hermes/mcpserver/tooldef"
)

// benchTree writes 50 skills in 10 categories, each with a reference file,
// the shape of a typical user library.
func benchTree(b *testing.B) string {
	b.Helper()
	home := b.TempDir()
	for i := range 50 {
		dir := filepath.Join(home, "skills", fmt.Sprintf("category-%02d", i%10), fmt.Sprintf("skill-%02d", i))
		writeFile(b, filepath.Join(dir, "SKILL.md"), fmt.Sprintf(`---
name: skill-%02d
description: Benchmark skill number %d, which does one well-described thing for the user.
version: 1.0.0
metadata:
  hermes:
    tags: [bench, generated]
---
# Skill %d

Steps go here.
`, i, i, i))
		writeFile(b, filepath.Join(dir, "references", "notes.md"), "# Notes\n")
	}
	return home
}

// BenchmarkSkillsList measures a skills_list call on a warm, unchanged
// 50-skill tree: argument decoding, cache revalidation and encoding the
// result as the server does.
func BenchmarkSkillsList(b *testing.B) {
	home := benchTree(b)
	ts := Toolset(Options{Home: home, Platform: "linux"})
	handler := ts.Tools[0].Handler
	ctx := context.Background()
	args := json.RawMessage(`{}`)
	// Let the tree age past the racy window so the cache is trusted, as it
	// is for any library that was not written in the last moment.
	for range 2 {
		if _, err := handler(ctx, args); err != nil {
			b.Fatal(err)
		}
	}
	waitQuiet(b, home)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := handler(ctx, args)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := tooldef.EncodeJSON(res.Value); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSkillsListRescan is the cost when every call finds a change, the
// bound for a library that is being edited.
func BenchmarkSkillsListRescan(b *testing.B) {
	home := benchTree(b)
	opts := Options{Home: home, Platform: "linux"}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		lib := NewLibrary(opts)
		if _, err := lib.Skills(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

func waitQuiet(b *testing.B, home string) {
	b.Helper()
	lib := NewLibrary(Options{Home: home})
	for range 100 {
		if _, err := lib.Skills(context.Background()); err != nil {
			b.Fatal(err)
		}
		if snap := lib.current.Load(); !snap.racy {
			return
		}
		sleepRacy()
	}
	b.Fatal("tree never became quiet")
}

func sleepRacy() { time.Sleep(racyWindow / 5) }
