package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkFirstRun is a first `hermes-migrate --client all` on the
// realistic home: six config files written, the tools' needs checked.
func BenchmarkFirstRun(b *testing.B) {
	h := newRealHome(b)
	fixture := h.home
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		h.home = filepath.Join(b.TempDir(), "home")
		h.env["HOME"] = h.home
		if err := os.CopyFS(h.home, os.DirFS(fixture)); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		var out, errb bytes.Buffer
		if code := run(context.Background(), []string{"--client", "all"}, &out, &errb, h.deps()); code != exitOK {
			b.Fatalf("exit %d: %s", code, errb.String())
		}
	}
}
