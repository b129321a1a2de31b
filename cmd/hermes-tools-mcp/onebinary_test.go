package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hermes-go/hermes/internal/testkit/toolsbuild"
	"github.com/hermes-go/hermes/mcpserver/mcptest"
	"github.com/hermes-go/hermes/toolsets/browser"
)

// The installed binary alone serves every toolset: copied into a bin
// directory of its own and started with nothing else on PATH (no companion
// binary to find), it lists a tool of each kind, the browser's included
// when Chromium is installed.
func TestOneBinaryServesEveryToolset(t *testing.T) {
	chromium, err := browser.FindChromium("")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("Chromium is required in CI (make test installs it): %v", err)
		}
		t.Skipf("no Chromium: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	installed := filepath.Join(bin, toolsbuild.Server)
	copyFile(t, toolsbuild.ServerBinary(t), installed)
	home := t.TempDir()
	cmd := exec.Command(installed, "--hermes-home", filepath.Join(home, ".hermes"), "--toolsets", "all")
	cmd.Env = []string{"PATH=" + bin, "HOME=" + home, "CHROME_PATH=" + chromium}
	names, err := mcptest.Start(t, cmd).ToolNames()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"browser_navigate", "web_extract", "session_search", "todo_list", "memory", "skills_list"} {
		if !slices.Contains(names, want) {
			t.Errorf("%s is not listed; the server lists %v", want, names)
		}
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}
