package protostdout

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
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
