package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/hermesstate/statetest"
	"github.com/hermes-go/hermes/internal/testkit/fakechat"
)

// A session title is stored text anyone with the database can write (the
// Python Hermes takes titles from the model). `hermes sessions list` shows
// its control characters escaped: the title cannot retitle the terminal,
// ring it, clear it or rewrite the line.
func TestSessionsListEscapesTitles(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, "state.db")
	statetest.OriginalV30(t, path)
	const title = "evil\x1b]0;pwned\a\x1b[2J\rX\u202eexe.txt\u009b1m"
	statetest.OpenOriginal(t, path).SetTitle(statetest.SessMain, title, "user")

	code, out, errOut := runCLI(t, testDeps(nil), "", "sessions", "list", "--hermes-home", home)
	if code != exitOK {
		t.Fatalf("exit %d stderr %q", code, errOut)
	}
	for _, raw := range []string{"\x1b", "\a", "\r", "\u202e", "\u009b"} {
		if strings.Contains(out, raw) {
			t.Errorf("output holds %q raw:\n%q", raw, out)
		}
	}
	const shown = `evil\x1b]0;pwned\a\x1b[2J\rX\u202eexe.txt\u009b1m`
	if !strings.Contains(out, shown) {
		t.Errorf("output lacks the escaped title %s:\n%s", shown, out)
	}
}

// A model's answer is data too: streamed or not, its control characters
// reach the terminal escaped; newlines and tabs stay.
func TestChatEscapesTheAnswer(t *testing.T) {
	fake := fakechat.New(fakechat.Reply{Text: "line one\n\tindented \x1b]0;pwned\a\x1b[2J\rdone \u202eevil"})
	defer fake.Close()
	home := newHome(t, fake, "")
	code, out, errOut := runCLI(t, testDeps(nil), "", "chat", "-q", "hi", "--hermes-home", home, "--hermes-tools-command", buildTools(t))
	if code != exitOK {
		t.Fatalf("exit %d stderr %q", code, errOut)
	}
	const want = "line one\n\tindented \\x1b]0;pwned\\a\\x1b[2J\\rdone \\u202eevil\n"
	if out != want {
		t.Errorf("stdout %q, want %q", out, want)
	}
}
