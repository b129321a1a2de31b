package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/hermesstate/statetest"
	"github.com/hermes-go/hermes/internal/testkit/fakechat"
)

// A chat past a small context window is compressed and goes on: the
// middle is summarised on auxiliary.compression, the request carries the
// summary instead of it, the conversation continues in a child session
// as Hermes hands a compressed one on, the parent keeps every message,
// the lease in compression_locks is gone afterwards, and --resume of the
// parent continues in the child. /compress does it on demand, with a
// focus.
func TestContextCompression(t *testing.T) {
	pad := strings.Repeat("lorem ipsum ", 200) // 2400 characters, ~600 tokens
	var replies []fakechat.Reply
	for i := 1; i <= 6; i++ {
		replies = append(replies, fakechat.Reply{Text: fmt.Sprintf("answer-%d %s", i, pad)})
	}
	fake := fakechat.New(replies...)
	defer fake.Close()
	summ := fakechat.New(fakechat.Reply{Text: "SUMMARY-ONE: the user asked about apples."}, fakechat.Reply{Text: "SUMMARY-TWO: apples and pears."})
	defer summ.Close()
	home, path := compressionHome(t, fake, summ)
	tools := buildTools(t)

	var stdin strings.Builder
	for i := 1; i <= 4; i++ {
		fmt.Fprintf(&stdin, "question-%d %s\n", i, pad)
	}
	stdin.WriteString("/compress keep the fruit\nquestion-5\n/quit\n")
	code, out, errOut := runCLI(t, testDeps(nil), stdin.String(), "chat", "--hermes-home", home, "--hermes-tools-command", tools)
	if code != exitOK {
		t.Fatalf("exit %d stdout %q stderr %q", code, out, errOut)
	}
	if !strings.Contains(errOut, "context compressed:") || !strings.Contains(out, "Compressed: ") {
		t.Errorf("no compression reported: stdout %q stderr %q", out, errOut)
	}
	sreqs := summ.Requests()
	if len(sreqs) != 2 || sreqs[0].Body["model"] != "summary-model" {
		t.Fatalf("summary route got %d requests; stderr %s", len(sreqs), errOut)
	}
	if in := fakechat.TextOf(sreqs[0].Messages()[1]); !strings.Contains(in, "answer-1") || !strings.Contains(in, "answer-2") || strings.Contains(in, "question-1") || strings.Contains(in, "answer-3") {
		t.Errorf("first summary input should be the middle (answer-1, not the protected first question): %q", in[:min(len(in), 300)])
	}
	if in := fakechat.TextOf(sreqs[1].Messages()[1]); !strings.Contains(in, "Focus the summary on: keep the fruit") || !strings.Contains(in, "SUMMARY-ONE") {
		t.Errorf("/compress summary input lacks the focus or the earlier summary: %q", in[:min(len(in), 300)])
	}
	reqs := fake.Requests()
	if len(reqs) != 5 {
		t.Fatalf("main model got %d requests, want 5", len(reqs))
	}
	third := transcript(reqs[3])
	if !strings.Contains(third, "[CONTEXT COMPACTION") || !strings.Contains(third, "SUMMARY-ONE") || strings.Contains(third, "answer-1") ||
		strings.Contains(third, "question-2") || !strings.HasPrefix(third, "user:question-1") || !strings.HasSuffix(strings.TrimSpace(third), strings.TrimSpace("user:question-4 "+pad)) {
		t.Errorf("the request after compression is not head + summary + tail + question: %q", third)
	}

	db := statetest.OpenRaw(t, path)
	first := regexp.MustCompile(`session (\S+)\n`).FindStringSubmatch(out)[1]
	// The lineage: first → child (auto) → grandchild (/compress).
	chain := []string{first}
	for {
		var child string
		if err := db.QueryRow("SELECT id FROM sessions WHERE parent_session_id = ?", chain[len(chain)-1]).Scan(&child); err != nil {
			break
		}
		chain = append(chain, child)
	}
	if len(chain) != 3 {
		t.Fatalf("compression lineage %v, want three sessions", chain)
	}
	for _, id := range chain[:2] {
		var reason string
		if err := db.QueryRow("SELECT end_reason FROM sessions WHERE id = ?", id).Scan(&reason); err != nil || reason != "compression" {
			t.Errorf("session %s end_reason %q (%v), want compression", id, reason, err)
		}
	}
	// Nothing is lost: every question and answer is in state.db, active.
	for i := 1; i <= 5; i++ {
		for _, word := range []string{fmt.Sprintf("question-%d", i), fmt.Sprintf("answer-%d", i)} {
			var n int
			if err := db.QueryRow("SELECT COUNT(*) FROM messages WHERE content LIKE ? AND active = 1", word+"%").Scan(&n); err != nil || n == 0 {
				t.Errorf("%s is not in state.db (%v)", word, err)
			}
		}
	}
	var parentRows int
	db.QueryRow("SELECT COUNT(*) FROM messages WHERE session_id = ?", first).Scan(&parentRows)
	if parentRows != 6 {
		t.Errorf("the first session holds %d messages, want its 6", parentRows)
	}
	var locks int
	if db.QueryRow("SELECT COUNT(*) FROM compression_locks").Scan(&locks); locks != 0 {
		t.Errorf("%d compression locks left", locks)
	}

	code, _, errOut = runCLI(t, testDeps(nil), "", "chat", "-q", "question-6", "--resume", first, "--hermes-home", home, "--hermes-tools-command", tools)
	if code != exitOK || !strings.Contains(errOut, "goes on in session "+chain[2]) {
		t.Fatalf("resume the first session: exit %d stderr %q", code, errOut)
	}
	if last := transcript(fake.Requests()[5]); !strings.Contains(last, "SUMMARY-TWO") || !strings.Contains(last, "question-5") {
		t.Errorf("resumed request lacks the summary or the last exchange: %q", last)
	}
	statetest.Check(t, path, statetest.Expect{Version: 30})
}

// A turn whose tool rounds grow the transcript past the threshold is
// compressed between its model calls, as the original does: the next call
// carries the summary, the turn's request verbatim and the latest tool
// round; what the turn said before is stored in the session it was said
// in, the rest in the continuation.
func TestContextCompressionDuringTurn(t *testing.T) {
	pad := strings.Repeat("lorem ipsum ", 200)   // ~600 tokens
	big := strings.Repeat("tool argument ", 600) // ~2,100 tokens
	fake := fakechat.New(
		fakechat.Reply{Text: "answer-1 " + pad},
		call("c1", "skills_list", `{"category":"round-one `+big+`"}`),
		call("c2", "skills_list", `{"category":"round-two `+big+`"}`),
		fakechat.Reply{Text: "answer-final"},
	)
	defer fake.Close()
	summ := fakechat.New(fakechat.Reply{Text: "SUMMARY-MID: round one listed no skills."})
	defer summ.Close()
	home, path := compressionHome(t, fake, summ)
	stdin := "question-1 " + pad + "\nquestion-2 list the skills twice\n/quit\n"
	code, out, errOut := runCLI(t, testDeps(nil), stdin, "chat", "--hermes-home", home, "--hermes-tools-command", buildTools(t))
	if code != exitOK || !strings.Contains(out, "answer-final") || !strings.Contains(errOut, "context compressed during the turn:") {
		t.Fatalf("exit %d stdout %q stderr %q", code, out, errOut)
	}
	if sreqs := summ.Requests(); len(sreqs) != 1 || !strings.Contains(fakechat.TextOf(sreqs[0].Messages()[1]), "round-one") {
		t.Fatalf("summary requests: %d", len(sreqs))
	}
	reqs := fake.Requests()
	if len(reqs) != 4 {
		t.Fatalf("main model got %d requests, want 4", len(reqs))
	}
	// The last call: head, summary, the request again, the latest round.
	var roles []string
	var body strings.Builder
	for _, m := range reqs[3].Messages() {
		if m["role"] == "system" {
			continue
		}
		roles = append(roles, m["role"].(string))
		b, _ := json.Marshal(m)
		body.Write(b)
	}
	if got := strings.Join(roles, ","); got != "user,user,user,assistant,tool" {
		t.Errorf("roles of the call after the compression: %s", got)
	}
	last := body.String()
	if !strings.Contains(last, "SUMMARY-MID") || !strings.Contains(last, "still in progress") || !strings.Contains(last, "question-2 list the skills twice") ||
		!strings.Contains(last, "round-two") || strings.Contains(last, "round-one") || strings.Contains(last, "answer-1") {
		t.Errorf("the call after the compression: %.600s", last)
	}

	db := statetest.OpenRaw(t, path)
	first := regexp.MustCompile(`session (\S+)\n`).FindStringSubmatch(out)[1]
	var child string
	if err := db.QueryRow("SELECT id FROM sessions WHERE parent_session_id = ?", first).Scan(&child); err != nil {
		t.Fatalf("no continuation session: %v", err)
	}
	count := func(session, like string) int {
		var n int
		db.QueryRow("SELECT COUNT(*) FROM messages WHERE session_id = ? AND (content LIKE ? OR tool_calls LIKE ?)", session, like, like).Scan(&n)
		return n
	}
	// Nothing the turn said is lost: round one is in the first session,
	// the answer in the continuation, each once.
	for _, tt := range []struct {
		session, like string
		want          int
	}{{first, "%question-2%", 1}, {first, "%round-one%", 1}, {first, "%answer-final%", 0}, {child, "%answer-final%", 1}, {child, "%round-two%", 1}, {child, "%round-one%", 0}} {
		if n := count(tt.session, tt.like); n != tt.want {
			t.Errorf("session %s holds %d messages like %q, want %d", tt.session, n, tt.like, tt.want)
		}
	}
	statetest.Check(t, path, statetest.Expect{Version: 30})
}

// A summary that fails during a turn is tried once, not before every
// later call; the turn goes on whole and every message is stored once.
func TestContextCompressionDuringTurnFails(t *testing.T) {
	pad := strings.Repeat("lorem ipsum ", 200)
	big := strings.Repeat("tool argument ", 600)
	fake := fakechat.New(
		fakechat.Reply{Text: "answer-1 " + pad},
		call("c1", "skills_list", `{"category":"round-one `+big+`"}`),
		call("c2", "skills_list", `{"category":"round-two `+big+`"}`),
		call("c3", "skills_list", `{"category":"round-three `+big+`"}`),
		fakechat.Reply{Text: "answer-final"},
	)
	defer fake.Close()
	summ := fakechat.New(fakechat.Reply{Status: 500, ErrorMessage: "summariser down"}, fakechat.Reply{Status: 500, ErrorMessage: "summariser down"},
		fakechat.Reply{Status: 500, ErrorMessage: "summariser down"}, fakechat.Reply{Status: 500, ErrorMessage: "summariser down"})
	defer summ.Close()
	home, path := compressionHome(t, fake, summ)
	stdin := "question-1 " + pad + "\nquestion-2 list the skills three times\n/quit\n"
	code, out, errOut := runCLI(t, testDeps(nil), stdin, "chat", "--hermes-home", home, "--hermes-tools-command", buildTools(t))
	if code != exitOK || !strings.Contains(out, "answer-final") {
		t.Fatalf("exit %d stdout %q stderr %q", code, out, errOut)
	}
	if n := strings.Count(errOut, "context compression during the turn failed"); n != 1 {
		t.Errorf("the failure was reported %d times: %s", n, errOut)
	}
	// One summary request, whatever the SDK's retries of it.
	sessions := map[string]bool{}
	for _, r := range summ.Requests() {
		sessions[fakechat.TextOf(r.Messages()[1])] = true
	}
	if len(sessions) != 1 {
		t.Errorf("%d different summaries were asked for, want one", len(sessions))
	}
	db := statetest.OpenRaw(t, path)
	for _, like := range []string{"%question-2%", "%round-one%", "%round-two%", "%round-three%", "%answer-final%"} {
		var n int
		db.QueryRow("SELECT COUNT(*) FROM messages WHERE content LIKE ? OR tool_calls LIKE ?", like, like).Scan(&n)
		if n != 1 {
			t.Errorf("%d messages like %q in state.db, want 1", n, like)
		}
	}
	first := regexp.MustCompile(`session (\S+)\n`).FindStringSubmatch(out)[1]
	var children int
	db.QueryRow("SELECT COUNT(*) FROM sessions WHERE parent_session_id = ?", first).Scan(&children)
	if children != 0 {
		t.Errorf("%d continuation sessions after a failed compression", children)
	}
}

// compressionHome is a Hermes home whose conversations compress early: a
// context of 8,000 tokens, half of it the threshold, one message kept at
// the head and two at the tail, the summaries written on summ; and its
// state.db as the original creates it.
func compressionHome(t *testing.T, fake, summ *fakechat.Server) (home, stateDB string) {
	t.Helper()
	home = newHome(t, fake, "compression:\n  threshold: 0.5\n  target_ratio: 0.2\n  protect_first_n: 1\n  protect_last_n: 2\n"+
		"auxiliary:\n  compression:\n    provider: custom\n    base_url: "+summ.BaseURL()+"\n    model: summary-model\n    api_key: sk\n")
	// context_length belongs in the model section.
	raw, err := os.ReadFile(filepath.Join(home, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(strings.Replace(string(raw), "  api_key: k\n", "  api_key: k\n  context_length: 8000\n", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	stateDB = filepath.Join(home, "state.db")
	statetest.OriginalV30(t, stateDB)
	return home, stateDB
}
