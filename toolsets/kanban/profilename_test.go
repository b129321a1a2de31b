package kanban_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/toolsets/kanban"
)

// Expected values were produced by Python 3.11's str.strip/casefold/lower,
// the calls hermes_cli/profiles.normalize_profile_name makes.
func TestNormalizeProfileName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Researcher", "researcher"},
		{"  coder \n", "coder"},
		{"DEFAULT", "default"},
		{" dEfAuLt\t", "default"},
		{"Researcher A", "researcher a"},
		{"\x1c qa \x1f", "qa"},
		{"\u00a0ops\u3000", "ops"},
		{"\u0085ops\u2028", "ops"},
		{"İstanbul", "i\u0307stanbul"},
		{"ΟΔΟΣ", "οδος"},
		{"ΣΑΣ ΣΑΣ", "σας σας"},
		{"Σ", "σ"},
		{"ΑΣ.", "ας."},
		{"ΑΣ'Α", "ασ'α"},
		{"ΑΣ\u0301", "ας\u0301"},
		{"ǅemal", "ǆemal"},
		{"ẞ", "ß"},
		{"K\u212a", "kk"},
		{"\u200bqa", "\u200bqa"},
		{"ﬀoo", "ﬀoo"},
	}
	for _, tt := range tests {
		got, err := kanban.NormalizeProfileName(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("NormalizeProfileName(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, blank := range []string{"", "   ", "\x1c\x1d", "\u0085", "\t\n\v\f\r"} {
		if got, err := kanban.NormalizeProfileName(blank); err == nil || err.Error() != "profile name cannot be empty" {
			t.Errorf("NormalizeProfileName(%q) = %q, %v; want Hermes' empty-name error", blank, got, err)
		}
	}
}

// TestNormalizeMatchesPython compares with Python itself on random names
// drawn from the characters where Go's and Python's rules part: the
// whitespace sets, İ, sigma in every position, titlecase letters, marks and
// the punctuation Final_Sigma skips. Skipped where python3 is missing.
func TestNormalizeMatchesPython(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	alphabet := []rune("aZ09 _-.'\t\n\x1c\x1d\x1e\x1f\u0085\u00a0\u2028\u3000İıΣσςΑΩǅǄ\u0301\u0345\u200b·:ẞKKDdEeFfAaUuLlTt")
	rng := rand.New(rand.NewPCG(1, 2))
	var inputs []string
	for range 3000 {
		n := 1 + rng.IntN(8)
		r := make([]rune, n)
		for i := range r {
			r[i] = alphabet[rng.IntN(len(alphabet))]
		}
		inputs = append(inputs, string(r))
	}
	inputs = append(inputs, "default", "DeFaUlT", " default ", "Σ", "ΑΣ", "ΑΣΑ", "Σ\u0301Α")
	in, _ := json.Marshal(inputs)
	const script = `
import json, sys
out = []
for s in json.load(sys.stdin):
    t = s.strip()
    out.append(None if not t else ("default" if t.casefold() == "default" else t.lower()))
json.dump(out, sys.stdout)
`
	cmd := exec.Command(py, "-c", script)
	cmd.Stdin = strings.NewReader(string(in))
	raw, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	var want []*string
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	for i, s := range inputs {
		got, err := kanban.NormalizeProfileName(s)
		switch {
		case want[i] == nil && err == nil:
			t.Errorf("%q: got %q, Python refuses it as empty", s, got)
		case want[i] != nil && (err != nil || got != *want[i]):
			t.Errorf("%q: got %q, %v; Python gives %q", s, got, err, *want[i])
		}
	}
}

// rawDB opens a board file with plain SQL, as another program would.
func rawDB(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func exec1(t testing.TB, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func TestAssigneesAreNormalised(t *testing.T) {
	home := t.TempDir()
	orch := newHarness(t, home, map[string]string{"HERMES_PROFILE": "lead"})
	b := openBoard(t, filepath.Join(home, "kanban.db"))
	ctx := context.Background()

	created := orch.ok("kanban_create", obj{"title": "Dig", "assignee": " Researcher A\u00a0"})
	id := created["task_id"].(string)
	if got := mustTask(t, b, id).Assignee; got == nil || *got != "researcher a" {
		t.Fatalf("stored assignee = %v, want \"researcher a\"", got)
	}
	evs, _ := b.Events(ctx, id)
	if p := evs[0].Payload.(map[string]any); p["assignee"] != "researcher a" {
		t.Errorf("created payload assignee = %v", p["assignee"])
	}
	if got := orch.ok("kanban_create", obj{"title": "Root", "assignee": "DEFAULT"}); *mustTask(t, b, got["task_id"].(string)).Assignee != "default" {
		t.Error("DEFAULT not stored as default")
	}
	for _, tt := range []struct{ assignee, want string }{
		{"", "assignee is required — name the profile that should execute this task (the dispatcher will only spawn tasks with an assignee)"},
		{" \t", "kanban_create: profile name cannot be empty"},
		{"\x1c", "kanban_create: profile name cannot be empty"},
	} {
		if msg := orch.fail("kanban_create", obj{"title": "x", "assignee": tt.assignee}); msg != tt.want {
			t.Errorf("assignee %q: %s", tt.assignee, msg)
		}
	}

	// Rows an older Hermes wrote keep their spelling but are the
	// normalised profile's tasks: the dispatcher spawns them as it.
	raw := rawDB(t, filepath.Join(home, "kanban.db"))
	for i, spelling := range []string{"Researcher A", " RESEARCHER A ", "Researcher B"} {
		exec1(t, raw, `INSERT INTO tasks (id, title, assignee, status, created_at) VALUES (?, ?, ?, 'ready', ?)`,
			"t_legacy"+strconv.Itoa(i), "legacy "+spelling, spelling, time.Now().Unix())
	}
	ids := func(res map[string]any) []string {
		var out []string
		for _, r := range res["tasks"].([]any) {
			out = append(out, r.(map[string]any)["id"].(string))
		}
		slices.Sort(out)
		return out
	}
	want := []string{id, "t_legacy0", "t_legacy1"}
	slices.Sort(want)
	for _, filter := range []string{"researcher a", "Researcher A", "  RESEARCHER A"} {
		if got := ids(orch.ok("kanban_list", obj{"assignee": filter})); !slices.Equal(got, want) {
			t.Errorf("list assignee=%q = %v, want %v", filter, got, want)
		}
	}
	if got := ids(orch.ok("kanban_list", obj{"assignee": "Default"})); len(got) != 1 {
		t.Errorf("list assignee=Default = %v", got)
	}
	if got := ids(orch.ok("kanban_list", obj{})); len(got) != 5 {
		t.Errorf("list without a filter = %v, want all 5", got)
	}
	for _, blank := range []string{"", "   "} {
		if msg := orch.fail("kanban_list", obj{"assignee": blank}); msg != "kanban_list: profile name cannot be empty" {
			t.Errorf("list assignee=%q: %s", blank, msg)
		}
	}
	// The legacy spelling is read, never rewritten.
	var stored string
	raw.QueryRow("SELECT assignee FROM tasks WHERE id = 't_legacy1'").Scan(&stored)
	if stored != " RESEARCHER A " {
		t.Errorf("legacy assignee rewritten to %q", stored)
	}
}

func TestReviewerIsNormalisedAndInstalled(t *testing.T) {
	home := t.TempDir()
	for _, p := range []string{"qa", "gone", "Bad Name"} {
		if err := os.MkdirAll(filepath.Join(home, "profiles", p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(home, "profiles", ".deleted", "gone"), "deleted\n")
	ctx := context.Background()
	orch := newHarness(t, home, nil)
	b := openBoard(t, filepath.Join(home, "kanban.db"))
	raw := rawDB(t, filepath.Join(home, "kanban.db"))
	id := orch.ok("kanban_create", obj{"title": "Build", "assignee": "coder"})["task_id"].(string)
	// An older Hermes stored the implementer with capitals.
	exec1(t, raw, "UPDATE tasks SET assignee = 'Coder' WHERE id = ?", id)
	claimed, err := b.ClaimTask(ctx, id, "host:1", time.Minute)
	if err != nil || claimed == nil {
		t.Fatal(err)
	}
	worker := newHarness(t, home, map[string]string{"HERMES_KANBAN_TASK": id, "HERMES_KANBAN_RUN_ID": strconv.FormatInt(*claimed.CurrentRunID, 10)})
	const installed = "Installed profiles: default, gone, qa"
	for _, tt := range []struct{ reviewer, want string }{
		{"nobody", "reviewer profile 'nobody' is not installed. " + installed},
		{"gone", "reviewer profile 'gone' is not installed. " + installed},
		{"it's", `reviewer profile "it's" is not installed. ` + installed},
		{"  ", "reviewer profile '  ' is not installed. " + installed},
	} {
		if msg := worker.fail("kanban_request_review", obj{"summary": "done", "reviewer": tt.reviewer}); msg != tt.want {
			t.Errorf("reviewer %q: %s\nwant %s", tt.reviewer, msg, tt.want)
		}
	}
	worker.ok("kanban_request_review", obj{"summary": "done", "reviewer": " QA "})
	task := mustTask(t, b, id)
	if *task.Assignee != "qa" {
		t.Fatalf("reviewer stored as %q", *task.Assignee)
	}
	evs, _ := b.Events(ctx, id)
	p := evs[len(evs)-1].Payload.(map[string]any)
	if p["reviewer"] != "qa" || p["implementer"] != "Coder" {
		t.Errorf("review_requested payload = %v", p)
	}
	// request_changes names the reviewer as normalised.
	exec1(t, raw, "UPDATE tasks SET assignee = 'QA' WHERE id = ?", id)
	rev, err := b.ClaimReviewTask(ctx, id, "host:2", time.Minute)
	if err != nil || rev == nil {
		t.Fatal(err)
	}
	qa := newHarness(t, home, map[string]string{"HERMES_KANBAN_TASK": id, "HERMES_KANBAN_RUN_ID": strconv.FormatInt(*rev.CurrentRunID, 10)})
	qa.ok("kanban_request_changes", obj{"reason": "Handle empty input."})
	evs, _ = b.Events(ctx, id)
	if p := evs[len(evs)-1].Payload.(map[string]any); p["reviewer"] != "qa" {
		t.Errorf("changes_requested payload = %v", p)
	}
}
