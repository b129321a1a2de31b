package skillsext

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-go/hermes/toolsets/skills"
)

// The extension serves through the Library's rule: a skill or file that
// leads out of the skills directory, is no regular file, or is over its
// size limit is neither in a manifest nor readable, and nothing blocks.
func TestConfinement(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs POSIX symlinks and FIFOs (syscall.Mkfifo), which Windows does not have")
	}
	base := t.TempDir()
	home, outside := filepath.Join(base, "home"), filepath.Join(base, "outside")
	root := filepath.Join(home, "skills")
	write := func(p, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, p string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	fifo := func(p string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(outside, "passwd"), skillMD("md-out", "Leaks."))
	write(filepath.Join(outside, "dir-out", "SKILL.md"), skillMD("dir-out", "Leaks."))
	write(filepath.Join(root, "ok", "SKILL.md"), skillMD("ok", "Served."))
	link(filepath.Join(outside, "passwd"), filepath.Join(root, "md-out", "SKILL.md"))
	link(filepath.Join(outside, "dir-out"), filepath.Join(root, "dir-out"))
	fifo(filepath.Join(root, "md-fifo", "SKILL.md"))
	write(filepath.Join(root, "md-big", "SKILL.md"), skillMD("md-big", "Too long.")+strings.Repeat("a", skills.MaxSkillChars))
	link(filepath.Join(outside, "passwd"), filepath.Join(root, "ok", "references", "out.md"))
	fifo(filepath.Join(root, "ok", "references", "pipe.md"))
	link("pipe.md", filepath.Join(root, "ok", "references", "pipe-link.md"))
	link("/dev/zero", filepath.Join(root, "ok", "assets", "zero"))
	link("/usr", filepath.Join(root, "ok", "assets", "usr"))

	x := New(Options{Library: skills.NewLibrary(skills.Options{Home: home, Platform: "linux"})})
	ctx := context.Background()
	done := make(chan struct{})
	go func() {
		defer close(done)
		var list ListSkillsResult
		if err := call(t, ctx, x, MethodSkillsList, `{}`, &list); err != nil {
			t.Error(err)
			return
		}
		var uris []string
		for _, s := range list.Skills {
			uris = append(uris, s.URI)
		}
		if want := []string{"skill://ok/SKILL.md"}; !slices.Equal(uris, want) {
			t.Errorf("served skills = %v, want %v", uris, want)
		}
		if len(list.Skills) == 1 {
			var files []string
			for _, r := range list.Skills[0].Resources {
				files = append(files, r.URI)
			}
			if want := []string{"skill://ok/SKILL.md"}; !slices.Equal(files, want) {
				t.Errorf("manifest = %v, want only SKILL.md", files)
			}
		}
		for _, uri := range []string{"skill://ok/references/out.md", "skill://ok/references/pipe.md", "skill://ok/references/pipe-link.md",
			"skill://ok/assets/zero", "skill://ok/assets/usr/bin/env", "skill://md-out/SKILL.md", "skill://md-fifo/SKILL.md",
			"skill://md-big/SKILL.md", "skill://dir-out/SKILL.md"} {
			var res ReadResourceResult
			if err := call(t, ctx, x, MethodResourcesRead, `{"uri":"`+uri+`"}`, &res); err == nil {
				t.Errorf("resources/read %s served %d bytes", uri, len(res.Contents))
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("blocked for 10s (a FIFO or device opened?)")
	}
}
