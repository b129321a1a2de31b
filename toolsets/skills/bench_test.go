package skills

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/toolsets/tooldef"
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

// BenchmarkSkillsListUsrLink is the 50-skill library plus one skill that
// ships a symbolic link to /usr, as planted in issue 16: the link leads out
// of the root, so the walk neither enters nor watches it. Reports the
// inotify watches held and the directories polled instead.
func BenchmarkSkillsListUsrLink(b *testing.B) {
	home := benchTree(b)
	writeFile(b, filepath.Join(home, "skills", "sysroot", "SKILL.md"), skillDoc("sysroot"))
	mustSymlink(b, "/usr", filepath.Join(home, "skills", "sysroot", "usr"))
	benchListing(b, home)
}

// BenchmarkSkillsListBigTree is the 50-skill library plus one skill that
// ships a 3000-directory tree inside the root: the watcher stops at
// maxWatches and polls the rest.
func BenchmarkSkillsListBigTree(b *testing.B) {
	home := benchTree(b)
	writeFile(b, filepath.Join(home, "skills", "vendored", "SKILL.md"), skillDoc("vendored"))
	for i := range 3000 {
		if err := os.MkdirAll(filepath.Join(home, "skills", "vendored", "tree", fmt.Sprintf("d%02d", i/100), fmt.Sprintf("d%04d", i)), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	benchListing(b, home)
}

// benchListing times skills_list cold (a new Library: the full walk) and
// warm (an unchanged tree: revalidation only), reporting the watches and
// polled directories.
func benchListing(b *testing.B, home string) {
	opts := Options{Home: home, Platform: "linux"}
	args := json.RawMessage(`{}`)
	report := func(b *testing.B, lib *Library) {
		snap := lib.current.Load()
		b.ReportMetric(float64(snap.watched), "watches")
		b.ReportMetric(float64(snap.polled), "polled-dirs")
	}
	b.Run("cold", func(b *testing.B) {
		ctx := context.Background()
		var lib *Library
		b.ReportAllocs()
		for b.Loop() {
			if lib != nil {
				lib.current.Load().release()
			}
			lib = NewLibrary(opts)
			if _, err := lib.Toolset().Tools[0].Handler(ctx, args); err != nil {
				b.Fatal(err)
			}
		}
		report(b, lib)
		lib.current.Load().release()
	})
	b.Run("warm", func(b *testing.B) {
		ctx := context.Background()
		waitQuiet(b, home)
		lib := NewLibrary(opts)
		handler := lib.Toolset().Tools[0].Handler
		if _, err := handler(ctx, args); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := handler(ctx, args); err != nil {
				b.Fatal(err)
			}
		}
		report(b, lib)
		lib.current.Load().release()
	})
}

// BenchmarkViewOversizeSkill serves skill_view on a 48 MB SKILL.md, as
// planted in issue 16: refused by its size before a byte is read, so B/op
// is the cost of the refusal, not of the file.
func BenchmarkViewOversizeSkill(b *testing.B) {
	home := b.TempDir()
	p := filepath.Join(home, "skills", "huge", "SKILL.md")
	writeFile(b, p, skillDoc("huge")+strings.Repeat("a", 48<<20))
	handler := Toolset(Options{Home: home, Platform: "linux"}).Tools[1].Handler
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := handler(ctx, json.RawMessage(`{"name":"huge"}`))
		if err != nil || !res.IsError {
			b.Fatalf("skill_view = %+v, %v; want a refusal", res, err)
		}
	}
}
