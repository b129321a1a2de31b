package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/hermesstate/statetest"
	"github.com/hermes-go/hermes/internal/testkit/fakechat"
)

func transcript(r fakechat.Request) string {
	var texts []string
	for _, m := range r.Messages() {
		if m["role"] != "system" {
			texts = append(texts, m["role"].(string)+":"+fakechat.TextOf(m))
		}
	}
	return strings.Join(texts, "|")
}

// /retry takes the last exchange back (in the conversation and, rewound
// as Hermes rewinds, in state.db) and sends the message again; a resumed
// session no longer carries the taken-back answer.
func TestRetry(t *testing.T) {
	fake := fakechat.New(fakechat.Reply{Text: "Paris."}, fakechat.Reply{Text: "Lyon, wrongly."}, fakechat.Reply{Text: "Marseille."},
		fakechat.Reply{Text: "Noted."})
	defer fake.Close()
	home := newHome(t, fake, "")
	path := filepath.Join(home, "state.db")
	statetest.OriginalV30(t, path)
	tools := buildTools(t)
	stdin := "Capital of France?\nSecond city?\n/retry\n/quit\n"
	code, out, errOut := runCLI(t, testDeps(nil), stdin, "chat", "--hermes-home", home, "--hermes-tools-command", tools)
	if code != exitOK || !strings.Contains(out, "↻ Retrying: Second city?") || !strings.Contains(out, "Marseille.") {
		t.Fatalf("exit %d stdout %q stderr %q", code, out, errOut)
	}
	reqs := fake.Requests()
	if got, want := transcript(reqs[2]), "user:Capital of France?|assistant:Paris.|user:Second city?"; got != want {
		t.Errorf("retried request %q, want %q", got, want)
	}
	id := regexp.MustCompile(`session (\S+)\n`).FindStringSubmatch(out)[1]
	db := statetest.OpenRaw(t, path)
	var active, rewound, msgCount, rewinds int
	if err := db.QueryRow(`SELECT (SELECT COUNT(*) FROM messages WHERE session_id = s.id AND active = 1),
		(SELECT COUNT(*) FROM messages WHERE session_id = s.id AND active = 0 AND compacted = 0),
		message_count, rewind_count FROM sessions s WHERE id = ?`, id).Scan(&active, &rewound, &msgCount, &rewinds); err != nil {
		t.Fatal(err)
	}
	if active != 4 || rewound != 2 || msgCount != 4 || rewinds != 1 {
		t.Errorf("active %d rewound %d message_count %d rewind_count %d; want 4, 2, 4, 1", active, rewound, msgCount, rewinds)
	}
	code, _, errOut = runCLI(t, testDeps(nil), "", "chat", "-q", "Thanks", "--resume", id, "--hermes-home", home, "--hermes-tools-command", tools)
	if code != exitOK {
		t.Fatalf("resume: exit %d %s", code, errOut)
	}
	if got := transcript(fake.Requests()[3]); strings.Contains(got, "Lyon") || !strings.Contains(got, "Second city?|assistant:Marseille.|user:Thanks") {
		t.Errorf("resumed transcript %q still has the taken-back answer or lacks the retried one", got)
	}
	statetest.Check(t, path, statetest.Expect{Version: 30})
}

// /undo takes the last exchange back, in the conversation and, rewound
// as Hermes rewinds, in state.db, and sends nothing; with nothing left to
// take back it says so.
func TestUndo(t *testing.T) {
	fake := fakechat.New(fakechat.Reply{Text: "Paris."}, fakechat.Reply{Text: "Lyon."}, fakechat.Reply{Text: "Nice."})
	defer fake.Close()
	home := newHome(t, fake, "")
	path := filepath.Join(home, "state.db")
	statetest.OriginalV30(t, path)
	stdin := "Capital of France?\nSecond city?\n/undo\nA southern city?\n/undo\n/undo\n/undo\n/quit\n"
	code, out, errOut := runCLI(t, testDeps(nil), stdin, "chat", "--hermes-home", home, "--hermes-tools-command", buildTools(t))
	if code != exitOK {
		t.Fatalf("exit %d stdout %q stderr %q", code, out, errOut)
	}
	for _, want := range []string{"↩ Took back the last exchange: Second city?", "↩ Took back the last exchange: A southern city?",
		"↩ Took back the last exchange: Capital of France?", "Nothing to undo."} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	reqs := fake.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3 (/undo sends nothing)", len(reqs))
	}
	if got, want := transcript(reqs[2]), "user:Capital of France?|assistant:Paris.|user:A southern city?"; got != want {
		t.Errorf("request after /undo %q, want %q", got, want)
	}
	id := regexp.MustCompile(`session (\S+)\n`).FindStringSubmatch(out)[1]
	db := statetest.OpenRaw(t, path)
	var active, rewound, msgCount, rewinds int
	if err := db.QueryRow(`SELECT (SELECT COUNT(*) FROM messages WHERE session_id = s.id AND active = 1),
		(SELECT COUNT(*) FROM messages WHERE session_id = s.id AND active = 0),
		message_count, rewind_count FROM sessions s WHERE id = ?`, id).Scan(&active, &rewound, &msgCount, &rewinds); err != nil {
		t.Fatal(err)
	}
	if active != 0 || rewound != 6 || msgCount != 0 || rewinds != 3 {
		t.Errorf("active %d rewound %d message_count %d rewind_count %d; want 0, 6, 0, 3", active, rewound, msgCount, rewinds)
	}
	statetest.Check(t, path, statetest.Expect{Version: 30})
}

// /model moves the rest of the session to another model, history kept;
// /model alone shows it; --provider takes that provider's endpoint.
func TestModelSwitch(t *testing.T) {
	fake := fakechat.New(fakechat.Reply{Text: "one"}, fakechat.Reply{Text: "two"})
	defer fake.Close()
	other := fakechat.New(fakechat.Reply{Text: "three"})
	defer other.Close()
	home := newHome(t, fake, "")
	stdin := "/retry\nfirst\n/model bigger-model\nsecond\n/model\n/model local-model --provider custom\nthird\n/model a b\n/quit\n"
	env := map[string]string{"OPENAI_BASE_URL": other.BaseURL()}
	code, out, errOut := runCLI(t, testDeps(env), stdin, "chat", "--hermes-home", home, "--hermes-tools-command", buildTools(t))
	if code != exitOK {
		t.Fatalf("exit %d stdout %q stderr %q", code, out, errOut)
	}
	for _, want := range []string{"No previous message to retry.", "Model switched to bigger-model (provider openai) for this session.",
		"Model: bigger-model (provider openai) on the native runtime", "Model switched to local-model (provider custom)", "three"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "one model name") {
		t.Errorf("two names not refused: %q", errOut)
	}
	reqs := fake.Requests()
	if len(reqs) != 2 || reqs[0].Body["model"] != "test-model" || reqs[1].Body["model"] != "bigger-model" {
		t.Fatalf("requests to the first endpoint: %d, models %v", len(reqs), reqs)
	}
	if got := transcript(reqs[1]); got != "user:first|assistant:one|user:second" {
		t.Errorf("history not kept across the switch: %q", got)
	}
	oreqs := other.Requests()
	if len(oreqs) != 1 || oreqs[0].Body["model"] != "local-model" || !strings.Contains(transcript(oreqs[0]), "assistant:two|user:third") {
		t.Errorf("custom provider request: %d %v", len(oreqs), oreqs)
	}
}

// /model NAME --global switches now and makes NAME config.yaml's
// model.default: the next conversation (/new re-reads the file) starts on
// it, and the file keeps every other byte, comments included.
func TestModelSwitchGlobal(t *testing.T) {
	fake := fakechat.New(fakechat.Reply{Text: "one"}, fakechat.Reply{Text: "two"})
	defer fake.Close()
	home := newHome(t, fake, "")
	path := filepath.Join(home, "config.yaml")
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	stdin := "/model saved-model --global\nfirst\n/new\nsecond\n/model --global\n/quit\n"
	code, out, errOut := runCLI(t, testDeps(nil), stdin, "chat", "--hermes-home", home, "--hermes-tools-command", buildTools(t))
	if code != exitOK || !strings.Contains(out, "Model switched to saved-model (provider openai), and saved in config.yaml for every session.") {
		t.Fatalf("exit %d stdout %q stderr %q", code, out, errOut)
	}
	if !strings.Contains(errOut, "--global needs a model name") {
		t.Errorf("/model --global without a name: stderr %q", errOut)
	}
	reqs := fake.Requests()
	if len(reqs) != 2 || reqs[0].Body["model"] != "saved-model" || reqs[1].Body["model"] != "saved-model" {
		t.Fatalf("models asked for: %v", reqs)
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(string(before), "default: test-model", "default: saved-model", 1); string(after) != want {
		t.Errorf("config.yaml =\n%s\nwant\n%s", after, want)
	}
}
