//go:build unix

package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-go/hermes/agentcore/chatcli"
	"github.com/hermes-go/hermes/internal/sqlitestore"
	"github.com/hermes-go/hermes/internal/testkit/fakechat"
	"github.com/hermes-go/hermes/internal/testkit/toolsbuild"
	"github.com/hermes-go/hermes/toolsets/kanban"
)

// asHermes makes this test binary run as the hermes command (see
// TestMain), so a worker is a real process started with the dispatcher's
// exact command line and environment.
const asHermes = "HERMES_TEST_AS_HERMES"

func TestMain(m *testing.M) {
	if os.Getenv(asHermes) == "1" {
		os.Unsetenv(asHermes)
		main()
	}
	os.Exit(m.Run())
}

// workerSetup is a Hermes root with a profile "coder" whose config.yaml
// names the fake model, whose .env holds the key, and whose skills hold
// kanban-worker; and a board at the root with one task assigned to the
// profile and claimed as the Python Hermes' dispatcher claims it.
type workerSetup struct {
	root, profile, board, workspace string
	task                            string
	run                             int64
	lock                            string
	fake                            *fakechat.Server
}

const workerKey = "sk-worker-profile-key"

func newWorkerSetup(t *testing.T, replies ...fakechat.Reply) *workerSetup {
	t.Helper()
	w := &workerSetup{root: t.TempDir(), fake: fakechat.New(replies...)}
	t.Cleanup(w.fake.Close)
	w.profile = filepath.Join(w.root, "profiles", "coder")
	skill := filepath.Join(w.profile, "skills", "devops", "kanban-worker")
	if err := os.MkdirAll(skill, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		filepath.Join(w.profile, "config.yaml"): "model:\n  default: worker-model\n  provider: openai\n  base_url: " + w.fake.BaseURL() + "\n",
		filepath.Join(w.profile, ".env"):        "OPENAI_API_KEY=" + workerKey + "\n",
		filepath.Join(skill, "SKILL.md"):        "---\nname: kanban-worker\ndescription: How a kanban worker works.\n---\nALWAYS-FINISH-WITH-A-VERDICT marker text.\n",
		// The root's own key must not be used by the profile's worker.
		filepath.Join(w.root, ".env"): "OPENAI_API_KEY=sk-root-not-this\n",
	}
	for p, text := range files {
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	w.board = filepath.Join(w.root, "kanban.db")
	b, err := kanban.OpenBoard(ctx, w.board, kanban.BoardOptions{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if w.task, err = b.CreateTask(ctx, kanban.NewTask{Title: "Write the report", Body: "Summarise the findings.", Assignee: "coder", CreatedBy: "user"}); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	w.lock = fmt.Sprintf("%s:%d", host, os.Getpid())
	claimed, err := b.ClaimTask(ctx, w.task, w.lock, 15*time.Minute)
	if err != nil || claimed == nil || claimed.CurrentRunID == nil {
		t.Fatalf("claim %s: %+v, %v", w.task, claimed, err)
	}
	w.run = *claimed.CurrentRunID
	w.workspace = filepath.Join(w.root, "kanban", "workspaces", w.task)
	if err := os.MkdirAll(w.workspace, 0o755); err != nil {
		t.Fatal(err)
	}
	return w
}

// spawn starts the worker as the dispatcher does: argv, environment, the
// workspace as working directory, no stdin, output appended to the task's
// log, a session of its own; and records the pid on the board. It returns
// the exit code and the log.
func (w *workerSetup) spawn(t *testing.T) (int, string) {
	t.Helper()
	tools := toolsbuild.ServerBinary(t)
	logPath := filepath.Join(w.root, "kanban", "logs", w.task+".log")
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		t.Fatal(err)
	}
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, exe, "-p", "coder", "--accept-hooks", "--skills", "kanban-worker",
		"-m", "worker-model", "chat", "-q", "work kanban task "+w.task)
	cmd.Env = []string{
		asHermes + "=1",
		"PATH=" + filepath.Dir(tools) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + t.TempDir(),
		"HERMES_HOME=" + w.profile,
		"HERMES_PROFILE=coder",
		"HERMES_KANBAN_TASK=" + w.task,
		"HERMES_KANBAN_WORKSPACE=" + w.workspace,
		fmt.Sprintf("HERMES_KANBAN_RUN_ID=%d", w.run),
		"HERMES_KANBAN_CLAIM_LOCK=" + w.lock,
		"HERMES_KANBAN_DB=" + w.board,
		"HERMES_KANBAN_WORKSPACES_ROOT=" + filepath.Join(w.root, "kanban", "workspaces"),
		"HERMES_KANBAN_BOARD=default",
		"HERMES_SESSION_SOURCE=kanban",
	}
	cmd.Dir = w.workspace
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	db := w.open(t)
	if _, err := db.Exec(`UPDATE tasks SET worker_pid = ? WHERE id = ?`, cmd.Process.Pid, w.task); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE task_runs SET worker_pid = ? WHERE id = ?`, cmd.Process.Pid, w.run); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	code := cmd.ProcessState.ExitCode()
	if err != nil && code < 0 {
		t.Fatalf("worker: %v", err)
	}
	out, _ := os.ReadFile(logPath)
	t.Logf("worker exit %d; log:\n%s", code, out)
	return code, string(out)
}

func (w *workerSetup) open(t *testing.T) *sqlitestore.DB {
	t.Helper()
	db, err := sqlitestore.Open(context.Background(), w.board, sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// dispatcherRow is what the Python Hermes' dispatcher reads of a task and
// its run to book the outcome.
type dispatcherRow struct {
	status                            string
	claimLock, workerPID, completedAt sql.NullString
	runStatus, runOutcome, runSummary sql.NullString
	runEnded                          sql.NullInt64
}

func (w *workerSetup) row(t *testing.T) dispatcherRow {
	t.Helper()
	var r dispatcherRow
	err := w.open(t).QueryRow(`SELECT t.status, t.claim_lock, t.worker_pid, t.completed_at,
		r.status, r.outcome, r.summary, r.ended_at
		FROM tasks t JOIN task_runs r ON r.id = ? WHERE t.id = ?`, w.run, w.task).Scan(
		&r.status, &r.claimLock, &r.workerPID, &r.completedAt, &r.runStatus, &r.runOutcome, &r.runSummary, &r.runEnded)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func call(id, name, args string) fakechat.Reply {
	return fakechat.Reply{ToolCalls: []fakechat.ToolCall{{ID: id, Name: name, Arguments: args}}}
}

// TestDispatchedWorkerCompletesTask: the Python Hermes' dispatcher starts
// `hermes -p coder --accept-hooks --skills kanban-worker -m M chat -q
// "work kanban task T"`; this hermes takes that command line, reads the
// profile's config and key, preloads the skill, tells the model the worker
// protocol, gives it the kanban tools for its task, and the task ends
// done with the run closed, as the dispatcher reads it.
func TestDispatchedWorkerCompletesTask(t *testing.T) {
	w := newWorkerSetup(t,
		call("c1", "kanban_show", `{}`),
		call("c2", "kanban_complete", `{"summary": "Wrote the report to report.md."}`),
		fakechat.Reply{Text: "Done."},
	)
	code, log := w.spawn(t)
	if code != exitOK || !strings.HasSuffix(strings.TrimSpace(log), "[kanban-worker-exit] rc=0") {
		t.Fatalf("exit %d; the log must end with the exit trailer", code)
	}
	r := w.row(t)
	if r.status != "done" || r.claimLock.Valid || r.workerPID.Valid || !r.completedAt.Valid {
		t.Errorf("task row: status %q claim_lock %v worker_pid %v completed_at %v", r.status, r.claimLock, r.workerPID, r.completedAt)
	}
	if r.runOutcome.String != "completed" || !r.runEnded.Valid || r.runSummary.String != "Wrote the report to report.md." {
		t.Errorf("run row: status %q outcome %q summary %q ended %v", r.runStatus.String, r.runOutcome.String, r.runSummary.String, r.runEnded)
	}

	reqs := w.fake.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model calls, want 3", len(reqs))
	}
	if got := reqs[0].Header.Get("Authorization"); got != "Bearer "+workerKey {
		t.Errorf("the model got Authorization %q, want the profile .env's key", got)
	}
	if m := reqs[0].Body["model"]; m != "worker-model" {
		t.Errorf("model %v, want -m's", m)
	}
	system := fakechat.TextOf(reqs[0].Messages()[0])
	for _, want := range []string{"ALWAYS-FINISH-WITH-A-VERDICT", "Kanban task " + w.task, w.workspace, "kanban_complete"} {
		if !strings.Contains(system, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, system)
		}
	}
	if user := fakechat.TextOf(reqs[0].Messages()[1]); user != "work kanban task "+w.task {
		t.Errorf("user turn %q", user)
	}
	tools := reqs[0].ToolNames()
	for _, want := range []string{"kanban_show", "kanban_complete", "kanban_block"} {
		if !strings.Contains(strings.Join(tools, " "), want) {
			t.Errorf("the worker was not offered %s: %v", want, tools)
		}
	}
	if show := fakechat.TextOf(reqs[1].Messages()[len(reqs[1].Messages())-1]); !strings.Contains(show, "Write the report") {
		t.Errorf("kanban_show did not answer with the task: %s", show)
	}
}

// TestDispatchedWorkerBlocks: a worker that cannot go on blocks the task;
// the dispatcher reads a blocked task and a closed run.
func TestDispatchedWorkerBlocks(t *testing.T) {
	w := newWorkerSetup(t,
		call("c1", "kanban_show", `{}`),
		call("c2", "kanban_block", `{"reason": "The findings file is missing; need it attached."}`),
		fakechat.Reply{Text: "Blocked."},
	)
	if code, _ := w.spawn(t); code != exitOK {
		t.Fatalf("exit %d", code)
	}
	if r := w.row(t); r.status != "blocked" || r.claimLock.Valid || r.runOutcome.String != "blocked" || !r.runEnded.Valid {
		t.Errorf("task %q claim %v; run outcome %q ended %v", r.status, r.claimLock, r.runOutcome.String, r.runEnded)
	}
}

// TestDispatchedWorkerProviderFailures: a worker whose model call fails
// exits with the code the dispatcher books: 75 for a rate limit (requeue,
// no failure counted), 78 for rejected credentials (block now).
func TestDispatchedWorkerProviderFailures(t *testing.T) {
	for _, tt := range []struct {
		status int
		want   int
	}{{429, chatcli.ExitWorkerTransient}, {503, chatcli.ExitWorkerTransient}, {402, chatcli.ExitWorkerTransient}, {401, chatcli.ExitWorkerTerminal}} {
		t.Run(fmt.Sprint(tt.status), func(t *testing.T) {
			var replies []fakechat.Reply
			for range 8 { // the SDK's retries of 429 and 5xx included
				replies = append(replies, fakechat.Reply{Status: tt.status, ErrorMessage: "scripted failure"})
			}
			w := newWorkerSetup(t, replies...)
			code, log := w.spawn(t)
			if code != tt.want || !strings.HasSuffix(strings.TrimSpace(log), fmt.Sprintf("[kanban-worker-exit] rc=%d", tt.want)) {
				t.Errorf("exit %d, want %d with the trailer", code, tt.want)
			}
		})
	}
}

// TestProfileDefaultOverSticky: with the root's active_profile naming
// "coder", `hermes -p default` runs in the root, and so must the
// hermes-tools it starts: that child must not read active_profile again
// and serve coder's memory (as the dispatcher's worker for assignee
// "default" would otherwise).
func TestProfileDefaultOverSticky(t *testing.T) {
	fake := fakechat.New(
		call("c1", "memory", `{"action": "read", "target": "memory"}`),
		fakechat.Reply{Text: "done"},
	)
	defer fake.Close()
	root := newHome(t, fake, "")
	coder := filepath.Join(root, "profiles", "coder")
	for dir, fact := range map[string]string{root: "ROOT-FACT", coder: "CODER-FACT"} {
		if err := os.MkdirAll(filepath.Join(dir, "memories"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "memories", "MEMORY.md"), []byte(fact), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "active_profile"), []byte("coder\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCLI(t, testDeps(map[string]string{"HERMES_HOME": root}), "", "-p", "default", "chat", "-q", "hi", "--no-history", "--hermes-tools-command", buildTools(t))
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	msgs := fake.Requests()[1].Messages()
	got := fakechat.TextOf(msgs[len(msgs)-1])
	if !strings.Contains(got, "ROOT-FACT") || strings.Contains(got, "CODER-FACT") {
		t.Errorf("hermes-tools served another home than the chat's: memory read %s", got)
	}
}

// TestPreloadRefusesWhatSkillViewRefuses: --skills loads no skill that
// skill_view would refuse (disabled in config.yaml), and the conversation
// does not start.
func TestPreloadRefusesWhatSkillViewRefuses(t *testing.T) {
	w := newWorkerSetup(t, fakechat.Reply{Text: "should not be asked"})
	cfg := filepath.Join(w.profile, "config.yaml")
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, append(b, "skills:\n  disabled: [kanban-worker]\n"...), 0o600); err != nil {
		t.Fatal(err)
	}
	code, log := w.spawn(t)
	if code == exitOK || !strings.Contains(log, "--skills kanban-worker: the skill is disabled") || len(w.fake.Requests()) != 0 {
		t.Errorf("exit %d, %d model calls; want a refusal naming the disabled skill", code, len(w.fake.Requests()))
	}
}

func TestReasoningEffort(t *testing.T) {
	for in, want := range map[string]string{"": "", "none": "none", "High": "high", "xhigh": "xhigh", "max": "xhigh", "ultra": "xhigh"} {
		if got, err := reasoningEffort(in); err != nil || got != want {
			t.Errorf("reasoningEffort(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := reasoningEffort("extreme"); err == nil {
		t.Error("an unknown level must be refused")
	}
}
