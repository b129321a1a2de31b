package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/hermesstate/statetest"
	"github.com/hermes-go/hermes/internal/testkit/fakechat"
)

// originalGoalKeys are the original's GoalState fields in its dataclass
// order, which json.dumps(asdict(state)) writes.
var originalGoalKeys = []string{"goal", "status", "turns_used", "max_turns", "created_at", "last_turn_at",
	"last_verdict", "last_reason", "paused_reason", "consecutive_parse_failures", "consecutive_transport_failures",
	"subgoals", "waiting_on_pid", "waiting_on_session", "waiting_until", "waiting_on_delegations",
	"waiting_reason", "waiting_since", "contract", "gates"}

func judgeConfig(judge *fakechat.Server) string {
	return "auxiliary:\n  goal_judge:\n    provider: custom\n    base_url: " + judge.BaseURL() + "\n    model: judge-model\n    api_key: jk\n"
}

// goalRecord reads state_meta goal:<id> and its keys in order.
func goalRecord(t *testing.T, path, id string) (map[string]any, []string, string) {
	t.Helper()
	var raw string
	if err := statetest.OpenRaw(t, path).QueryRow("SELECT value FROM state_meta WHERE key = ?", "goal:"+id).Scan(&raw); err != nil {
		t.Fatalf("no goal:%s in state_meta: %v", id, err)
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(raw), &rec); err != nil {
		t.Fatalf("goal record %q: %v", raw, err)
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	var keys []string
	dec.Token()
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		var skip json.RawMessage
		dec.Decode(&skip)
	}
	return rec, keys, raw
}

// A goal that takes three turns: the judge, on its own server, says
// continue, continue, done; each continuation is the original's prompt as
// a user turn; the record in state.db is the original's GoalState.
func TestGoalLoopThreeTurns(t *testing.T) {
	fake := fakechat.New(fakechat.Reply{Text: "Step one written."}, fakechat.Reply{Text: "Step two written."},
		fakechat.Reply{Text: "Step three written; all three steps are done."})
	defer fake.Close()
	judge := fakechat.New(
		fakechat.Reply{Text: `{"verdict": "continue", "reason": "only one step so far"}`},
		fakechat.Reply{Text: "```json\n{\"verdict\": \"continue\", \"reason\": \"two of three\"}\n```"},
		fakechat.Reply{Text: `{"verdict": "done", "reason": "all three steps exist"}`},
	)
	defer judge.Close()
	home := newHome(t, fake, judgeConfig(judge))
	path := filepath.Join(home, "state.db")
	statetest.OriginalV30(t, path)

	stdin := "/goal write three steps\n/goal status\n/quit\n"
	code, out, errOut := runCLI(t, testDeps(nil), stdin, "chat", "--hermes-home", home, "--hermes-tools-command", buildTools(t))
	if code != exitOK {
		t.Fatalf("exit %d; stdout %q stderr %q", code, out, errOut)
	}
	for _, want := range []string{"⊙ Goal set (20-turn budget): write three steps", "↻ Continuing toward goal (1/20): only one step so far",
		"↻ Continuing toward goal (2/20): two of three", "✓ Goal achieved: all three steps exist", "✓ Goal done (3/20 turns): write three steps"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	reqs := fake.Requests()
	if len(reqs) != 3 {
		t.Fatalf("main model got %d requests, want 3", len(reqs))
	}
	last := func(r fakechat.Request) string { m := r.Messages(); return fakechat.TextOf(m[len(m)-1]) }
	if got := last(reqs[0]); got != "write three steps" {
		t.Errorf("first turn sent %q, want the goal text", got)
	}
	wantCont := "[Continuing toward your standing goal]\nGoal: write three steps\n\nContinue working toward this goal. Take the next concrete step. If you believe the goal is complete, state so explicitly and stop. If you are blocked and need input from the user, say so clearly and stop."
	for i := 1; i < 3; i++ {
		if got := last(reqs[i]); got != wantCont {
			t.Errorf("turn %d sent %q, want the continuation prompt", i+1, got)
		}
	}
	jreqs := judge.Requests()
	if len(jreqs) != 3 {
		t.Fatalf("judge got %d requests, want 3", len(jreqs))
	}
	for i, want := range []string{"Step one written.", "Step two written.", "Step three written"} {
		body := jreqs[i].Body
		if body["model"] != "judge-model" || body["temperature"] != 0.0 || body["stream"] == true {
			t.Errorf("judge request %d: model %v temperature %v stream %v", i, body["model"], body["temperature"], body["stream"])
		}
		if u := last(jreqs[i]); !strings.Contains(u, "Goal:\nwrite three steps") || !strings.Contains(u, want) {
			t.Errorf("judge request %d does not carry the goal and the response %q: %q", i, want, u)
		}
		if got := jreqs[i].Header.Get("Authorization"); got != "Bearer jk" {
			t.Errorf("judge request %d went with key %q, want the route's", i, got)
		}
	}

	m := regexp.MustCompile(`session (\S+)\n`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no session id in the banner: %q", out)
	}
	rec, keys, raw := goalRecord(t, path, m[1])
	if strings.Join(keys, ",") != strings.Join(originalGoalKeys, ",") {
		t.Errorf("goal record keys %v, want the original's %v", keys, originalGoalKeys)
	}
	if rec["goal"] != "write three steps" || rec["status"] != "done" || rec["turns_used"] != 3.0 || rec["max_turns"] != 20.0 ||
		rec["last_verdict"] != "done" || rec["last_reason"] != "all three steps exist" || rec["paused_reason"] != nil {
		t.Errorf("goal record %s", raw)
	}
	if c, _ := rec["contract"].(map[string]any); len(c) != 5 || c["stop_when"] != "" {
		t.Errorf("contract %v, want the five empty fields", rec["contract"])
	}
	if !strings.HasPrefix(raw, `{"goal": "write three steps", "status": "done", "turns_used": 3, `) {
		t.Errorf("record not in json.dumps' layout: %s", raw)
	}
	statetest.Check(t, path, statetest.Expect{Version: 30})
}

// A goal the original set (in its layout, with a key this build does not
// know) is picked up on --resume, judged after the user's turn, and
// written back with that key kept; /goal pause, /subgoal and /goal clear
// change it in place; a blocked verdict pauses it with the reason.
func TestGoalFromTheOriginal(t *testing.T) {
	fake := fakechat.New(fakechat.Reply{Text: "Started."}, fakechat.Reply{Text: "I need the staging password to go on."})
	defer fake.Close()
	judge := fakechat.New(fakechat.Reply{Text: `{"verdict": "blocked", "reason": "needs the staging password"}`})
	defer judge.Close()
	home := newHome(t, fake, judgeConfig(judge)+"goals:\n  max_turns: 7\n")
	path := filepath.Join(home, "state.db")
	statetest.OriginalV30(t, path)
	tools := buildTools(t)
	code, _, errOut := runCLI(t, testDeps(nil), "", "chat", "-q", "hello", "--hermes-home", home, "--hermes-tools-command", tools)
	if code != exitOK {
		t.Fatalf("first run: exit %d %s", code, errOut)
	}
	id := regexp.MustCompile(`session (\S+) \(continue it`).FindStringSubmatch(errOut)[1]
	orig := `{"goal": "deploy to staging", "status": "active", "turns_used": 2, "max_turns": 5, "created_at": 1764320000.5, "last_turn_at": 1764320100.25, "last_verdict": "continue", "last_reason": "not yet", "paused_reason": null, "consecutive_parse_failures": 0, "consecutive_transport_failures": 0, "subgoals": ["keep the old config"], "waiting_on_pid": null, "waiting_on_session": null, "waiting_until": 0.0, "waiting_on_delegations": 0, "waiting_reason": null, "waiting_since": 0.0, "contract": {"outcome": "", "verification": "curl the health check", "constraints": "", "boundaries": "", "stop_when": ""}, "gates": [{"command": "make check", "timeout_seconds": 300, "max_retries": 3, "attempts": 0, "last_exit_code": null, "last_output_tail": ""}], "future_field": {"a": [1, 2]}}`
	if _, err := statetest.OpenRaw(t, path).Exec("INSERT INTO state_meta (key, value) VALUES (?, ?)", "goal:"+id, orig); err != nil {
		t.Fatal(err)
	}

	stdin := "go on\n/subgoal\n/goal status\n/goal clear\n/goal\n/quit\n"
	code, out, errOut := runCLI(t, testDeps(nil), stdin, "chat", "--resume", id, "--hermes-home", home, "--hermes-tools-command", tools)
	if code != exitOK {
		t.Fatalf("exit %d; stdout %q stderr %q", code, out, errOut)
	}
	for _, want := range []string{"⊙ Goal (active, 2/5 turns, 1 subgoal, contract, 1 gate): deploy to staging",
		"⏸ Goal paused — blocked: needs the staging password", "- 1. keep the old config",
		"⏸ Goal (paused, 3/5 turns, 1 subgoal, contract, 1 gate — judge blocked: needs the staging password): deploy to staging",
		"Goal cleared.", "No active goal. Set one with /goal <text>."} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if n := len(fake.Requests()); n != 2 {
		t.Errorf("main model got %d requests, want 2 (blocked stops the loop)", n)
	}
	ju := fakechat.TextOf(judge.Requests()[0].Messages()[1])
	for _, want := range []string{"Verification: curl the health check", "Extra criterion 1: keep the old config", "I need the staging password"} {
		if !strings.Contains(ju, want) {
			t.Errorf("judge prompt lacks %q: %s", want, ju)
		}
	}
	rec, keys, raw := goalRecord(t, path, id)
	if rec["status"] != "cleared" || rec["turns_used"] != 3.0 || rec["last_verdict"] != "blocked" || rec["paused_reason"] != "judge blocked: needs the staging password" {
		t.Errorf("goal record %s", raw)
	}
	if keys[len(keys)-1] != "future_field" || !strings.Contains(raw, `"future_field": {"a": [1, 2]}`) || !strings.Contains(raw, `"last_exit_code": null`) || rec["created_at"] != 1764320000.5 {
		t.Errorf("the original's fields were not kept: %s", raw)
	}
}
