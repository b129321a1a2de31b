//go:build unix

package bridge

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseVersion(t *testing.T) {
	tests := []struct {
		in      string
		want    Version
		wantErr bool
	}{
		{in: "codex-cli 0.169.0\n", want: Version{0, 169, 0}},
		{in: "0.125.3", want: Version{0, 125, 3}},
		{in: "codex-cli 1.2.3-alpha.4 (build 5.6.7)", want: Version{1, 2, 3}},
		{in: "codex-cli dev", wantErr: true},
		{in: "", wantErr: true},
	}
	for _, tt := range tests {
		got, err := ParseVersion(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseVersion(%q) = %v, %v; want %v, err=%v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestVersionCompare(t *testing.T) {
	tests := []struct {
		a, b Version
		want int
	}{
		{Version{0, 169, 0}, Version{0, 169, 0}, 0},
		{Version{0, 168, 9}, Version{0, 169, 0}, -1},
		{Version{0, 169, 1}, Version{0, 169, 0}, 1},
		{Version{1, 0, 0}, Version{0, 999, 999}, 1},
	}
	for _, tt := range tests {
		if got := tt.a.Compare(tt.b); got != tt.want {
			t.Errorf("%v.Compare(%v) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

// script writes an executable shell script into dir.
func script(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCheckVersion(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		body    string
		binary  string
		want    Version
		wantErr string
	}{
		{name: "exact minimum", body: `echo "codex-cli 0.169.0"`, want: Version{0, 169, 0}},
		{name: "newer", body: `echo "codex-cli 1.0.2"`, want: Version{1, 0, 2}},
		{name: "older", body: `echo "codex-cli 0.168.9"`, want: Version{0, 168, 9},
			wantErr: "codex 0.168.9 is older than required 0.169.0. Run: npm i -g @openai/codex"},
		{name: "unparseable", body: `echo "codex-cli dev"`, wantErr: `no x.y.z version in "codex-cli dev`},
		{name: "fails", body: `echo "config error: OPENAI_API_KEY=` + fakeSecret + `" >&2; exit 2`,
			wantErr: "--version failed: exit status 2: config error: OPENAI_API_KEY=sk-pro"},
		{name: "missing", binary: filepath.Join(dir, "nope"),
			wantErr: "codex CLI not found at \"" + filepath.Join(dir, "nope") + "\". Install with: npm i -g @openai/codex"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bin := tt.binary
			if bin == "" {
				bin = script(t, dir, strings.ReplaceAll(tt.name, " ", "_"), tt.body)
			}
			got, err := CheckVersion(context.Background(), bin)
			if got != tt.want {
				t.Errorf("version = %v, want %v", got, tt.want)
			}
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("err = %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
			if err != nil && strings.Contains(err.Error(), fakeSecret) {
				t.Errorf("secret in error: %v", err)
			}
		})
	}

	t.Run("hangs", func(t *testing.T) {
		bin := script(t, dir, "hang", "exec sleep 30")
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := CheckVersion(ctx, bin)
		if err == nil || !strings.Contains(err.Error(), "deadline exceeded") {
			t.Errorf("err = %v", err)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("took %v", d)
		}
	})
}

func TestFindBinary(t *testing.T) {
	dir := t.TempDir()
	onPath := filepath.Join(dir, "path")
	if err := os.Mkdir(onPath, 0o755); err != nil {
		t.Fatal(err)
	}
	pathCodex := script(t, onPath, "codex", "true")
	envCodex := script(t, dir, "codex-from-env", "true")
	overrideCodex := script(t, dir, "codex-override", "true")
	notExec := filepath.Join(dir, "plain-file")
	if err := os.WriteFile(notExec, nil, 0o644); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name     string
		override string
		env      string
		path     string
		want     string
		wantErr  string
	}{
		{name: "override wins", override: overrideCodex, env: envCodex, path: onPath, want: overrideCodex},
		{name: "override by name on PATH", override: "codex", path: onPath, want: pathCodex},
		{name: "CODEX_BIN", env: envCodex, path: onPath, want: envCodex},
		{name: "PATH", path: onPath, want: pathCodex},
		{name: "missing", path: dir, wantErr: `codex CLI not found (PATH: "codex"). Install with: npm i -g @openai/codex, or set CODEX_BIN`},
		{name: "CODEX_BIN not executable", env: notExec, path: onPath, wantErr: `codex CLI not found ($CODEX_BIN: "` + notExec + `")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(BinaryEnv, tt.env)
			t.Setenv("PATH", tt.path)
			got, err := FindBinary(tt.override)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("FindBinary = %q, %v; want error %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("FindBinary = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
