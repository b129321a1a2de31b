//go:build unix

package protostdio

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Reserve must keep fd 1 for the protocol and send anything else
// printed to "stdout" to stderr. Checked in a child process, since it
// rewires the process's descriptors.
func TestReserveDivertsStrayPrints(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("descriptor swapping is unix-only; on Windows stdout is used as is")
	}
	if os.Getenv("HERMES_TEST_RESERVE_CHILD") == "1" {
		proto, err := Reserve()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		fmt.Println("stray print")
		child := exec.Command("sh", "-c", "echo child output")
		child.Stdout = os.Stdout
		_ = child.Run()
		fmt.Fprintln(proto, `{"protocol":true}`)
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestReserveDivertsStrayPrints$")
	cmd.Env = append(os.Environ(), "HERMES_TEST_RESERVE_CHILD=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("child: %v\n%s", err, stderr.String())
	}
	if got := stdout.String(); got != "{\"protocol\":true}\n" {
		t.Errorf("stdout = %q, want only the protocol line", got)
	}
	for _, want := range []string{"stray print", "child output"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q: %q", want, stderr.String())
		}
	}
}

// Stdin is pollable (read deadlines work) when fd 0 is a pipe, and fd 0
// itself is never made non-blocking (its description may be shared with a
// parent shell). Checked in child processes.
func TestStdinIsPollableOnlyForPipes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("descriptor polling is unix-only")
	}
	if os.Getenv("HERMES_TEST_STDIN_CHILD") == "1" {
		err := Stdin().SetReadDeadline(time.Now().Add(time.Hour))
		flags, ferr := unix.FcntlInt(0, unix.F_GETFL, 0)
		fmt.Println(err == nil, ferr == nil && flags&unix.O_NONBLOCK != 0)
		os.Exit(0)
	}
	tests := []struct {
		name  string
		stdin func(t *testing.T) *os.File
		want  string
	}{
		{"pipe", func(t *testing.T) *os.File {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r.Close(); w.Close() })
			return r
		}, "true false"},
		{"/dev/null", func(t *testing.T) *os.File {
			f, err := os.Open(os.DevNull)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			return f
		}, "false false"},
	}
	for _, tt := range tests {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestStdinIsPollableOnlyForPipes$")
		cmd.Env = append(os.Environ(), "HERMES_TEST_STDIN_CHILD=1")
		cmd.Stdin = tt.stdin(t)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: child: %v", tt.name, err)
		}
		if got := strings.TrimSpace(string(out)); got != tt.want {
			t.Errorf("%s: pollable, fd 0 non-blocking = %s, want %s", tt.name, got, tt.want)
		}
	}
}
