package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/hermesstate/statetest"
	"github.com/hermes-go/hermes/internal/testkit/fakechat"
)

// The Python Hermes' own state.db (schema 30) is where `hermes chat` saves:
// no "will not be saved", the chat is found by Hermes' search, listed
// beside Hermes' sessions, resumed; a session Hermes compressed resumes in
// its continuation. Afterwards the file passes Hermes' checks.
func TestChatSavesIntoHermesStateDB(t *testing.T) {
	fake := fakechat.New(fakechat.Reply{Text: "The wombat enclosure opens at nine."}, fakechat.Reply{Text: "Yes, daily."},
		fakechat.Reply{Text: "The migration resumes at nine."})
	defer fake.Close()
	home := newHome(t, fake, "")
	path := filepath.Join(home, "state.db")
	statetest.OriginalV30(t, path)
	tools := buildTools(t)

	code, _, errOut := runCLI(t, testDeps(nil), "", "chat", "-q", "When does the wombat enclosure open?", "--hermes-home", home, "--hermes-tools-command", tools)
	if code != exitOK || strings.Contains(errOut, "will not be saved") {
		t.Fatalf("chat on Hermes' state.db: exit %d stderr %q", code, errOut)
	}
	m := regexp.MustCompile(`session (\S+) \(continue it with --resume`).FindStringSubmatch(errOut)
	if m == nil {
		t.Fatalf("no session id reported: %q", errOut)
	}
	id := m[1]
	code, out, errOut := runCLI(t, testDeps(nil), "", "chat", "-q", "Every day?", "--resume", id, "--hermes-home", home, "--hermes-tools-command", tools)
	if code != exitOK || out != "Yes, daily.\n" {
		t.Fatalf("resume: exit %d stdout %q stderr %q", code, out, errOut)
	}

	// Hermes compressed this conversation; resuming it goes on in the
	// continuation, with the summary Hermes wrote there.
	code, _, errOut = runCLI(t, testDeps(nil), "", "chat", "-q", "When do we resume?", "--resume", statetest.SessCompressed, "--hermes-home", home, "--hermes-tools-command", tools)
	if code != exitOK || !strings.Contains(errOut, "goes on in session "+statetest.SessContinuation) {
		t.Fatalf("resume a compressed session: exit %d stderr %q", code, errOut)
	}
	var texts []string
	for _, msg := range fake.Requests()[2].Messages() {
		texts = append(texts, fakechat.TextOf(msg))
	}
	if joined := strings.Join(texts, "|"); !strings.Contains(joined, "[CONTEXT COMPACTION]") || !strings.Contains(joined, "When do we resume?") {
		t.Errorf("the continuation's transcript was not sent: %q", joined)
	}

	code, out, errOut = runCLI(t, testDeps(nil), "", "sessions", "list", "--hermes-home", home)
	if code != exitOK || !strings.Contains(out, id) || !strings.Contains(out, statetest.SessMain) || strings.Contains(out, statetest.SessArchived) {
		t.Errorf("sessions list: exit %d stderr %q\n%s", code, errOut, out)
	}

	statetest.Check(t, path, statetest.Expect{Version: 30, Exact: true,
		Search: map[string][]string{"wombat": {id}, "daily": {id}, statetest.WordMain: {statetest.SessMain},
			"resume": {statetest.SessContinuation}},
		Counted: []string{id, statetest.SessContinuation}, Active: []string{id, statetest.SessContinuation}})
	db := statetest.OpenRaw(t, path)
	var reason, profile, source string
	if err := db.QueryRow("SELECT end_reason, profile_name, created_source FROM sessions WHERE id = ?", id).Scan(&reason, &profile, &source); err != nil ||
		reason != "cli_close" || profile != "default" || source != "cli" {
		t.Errorf("our session: end_reason %q profile %q created_source %q (%v)", reason, profile, source, err)
	}
}
