package sessions_test

import (
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/hermesstate/statetest"

	_ "modernc.org/sqlite"
)

var writeFixtures = flag.Bool("write-fixtures", false, "rewrite ../testdata/home/state.db, the small state.db the registry tests read")

// Known conversations the tests assert on; bulk filler is generated around
// them.
const (
	baseTime  = 1767225600.0 // 2026-01-01T00:00:00Z
	deployID  = "20260101_090000_deploy"
	deployCnt = "20260101_120000_deploy2"
	subagent  = "20260102_090000_sub"
	currentID = "20260103_090000_current"
	cjkID     = "20260104_090000_cjk"
	toolID    = "20260105_090000_tool"
	rewoundID = "20260106_090000_rewound"
)

type fixtureMsg struct {
	role, content, toolName, toolCalls string
	inactive                           bool
}

type fixtureSession struct {
	id, source, title, parent, endReason string
	started                              float64
	msgs                                 []fixtureMsg
}

func knownSessions() []fixtureSession {
	deploy := []fixtureMsg{{role: "user", content: "How do we deploy the billing service?"}}
	for i := 1; i < 12; i++ {
		role := "assistant"
		if i%2 == 0 {
			role = "user"
		}
		content := fmt.Sprintf("Step %d of the deployment checklist.", i)
		if i == 6 {
			content = "Run the kubernetes rollout for billing with a canary at 5 percent, then watch the error budget."
		}
		deploy = append(deploy, fixtureMsg{role: role, content: content})
	}
	deploy = append(deploy, fixtureMsg{role: "assistant", toolCalls: `[{"id":"c1","type":"function","function":{"name":"terminal","arguments":"{}"}}]`})
	return []fixtureSession{
		{id: deployID, source: "cli", title: "Deploying the billing service", started: baseTime, endReason: "compression", msgs: deploy},
		{id: deployCnt, source: "cli", parent: deployID, started: baseTime + 3*3600, msgs: []fixtureMsg{
			{role: "user", content: "[CONTEXT SUMMARY]: earlier we planned the billing rollout"},
			{role: "user", content: "Continue the billing rollout tomorrow morning."},
			{role: "assistant", content: "Noted: billing rollout resumes at 09:00."},
		}},
		{id: subagent, source: "subagent", started: baseTime + 86400, msgs: []fixtureMsg{
			{role: "user", content: "Summarise billing logs"}, {role: "assistant", content: "billing logs look fine"},
		}},
		{id: currentID, source: "cli", title: "Today", started: baseTime + 2*86400, msgs: []fixtureMsg{
			{role: "user", content: "What did we decide about billing?"},
		}},
		{id: cjkID, source: "telegram", title: "部署", started: baseTime + 3*86400, msgs: []fixtureMsg{
			{role: "user", content: "我们明天部署服务吗"}, {role: "assistant", content: "是的，明天上午部署服务。"},
		}},
		{id: toolID, source: "cli", title: "Memory leak", started: baseTime + 4*86400, msgs: []fixtureMsg{
			{role: "user", content: "Why did the worker die?"},
			{role: "tool", toolName: "terminal", content: "exit code 137 OOMKilled"},
			{role: "assistant", content: "It ran out of memory."},
		}},
		{id: rewoundID, source: "cli", title: "Rewound", started: baseTime + 5*86400, msgs: []fixtureMsg{
			{role: "user", content: "remember the passphrase zebracorn", inactive: true},
			{role: "user", content: "never mind"},
		}},
	}
}

var filler = []string{"alpha", "build", "cache", "debug", "error", "feature", "gateway", "handler", "index",
	"json", "kernel", "latency", "metric", "network", "option", "parser", "query", "router", "schema",
	"thread", "update", "vector", "worker", "yaml", "zone", "pipeline", "release", "review", "test", "plan"}

// buildStateDB writes a state.db at path as Hermes (schema 30) writes one:
// a fresh store, then the known sessions plus bulk sessions of bulkMsgs
// messages each, through Hermes' own statements. wal chooses the journal
// mode Hermes runs with; the committed registry fixture uses rollback so
// that reading it leaves no -wal/-shm files behind.
func buildStateDB(t testing.TB, path string, bulkSessions, bulkMsgs int, wal bool) {
	t.Helper()
	for _, suffix := range []string{"", "-journal", "-wal", "-shm"} {
		os.Remove(path + suffix)
	}
	statetest.Fresh(t, path)
	o := statetest.OpenOriginal(t, path)
	if wal {
		if _, err := o.DB.Exec("PRAGMA journal_mode=WAL"); err != nil {
			t.Fatal(err)
		}
	}
	o.Tx(func(tx *sql.Tx) {
		exec := func(q string, args ...any) {
			t.Helper()
			if _, err := tx.Exec(q, args...); err != nil {
				t.Fatal(err)
			}
		}
		addSession := func(s fixtureSession) {
			cfg := ""
			if s.source == "subagent" && s.parent != "" {
				cfg = `{"_delegate_from": "` + s.parent + `"}`
			}
			o.CreateSessionTx(tx, statetest.Session{ID: s.id, Source: s.source, Model: "gpt-5", Parent: s.parent, ModelConfig: cfg, StartedAt: s.started})
			if s.title != "" {
				exec("UPDATE sessions SET title = ?, title_source = 'user' WHERE id = ?", s.title, s.id)
			}
			for i, m := range s.msgs {
				msg := statetest.Msg{Role: m.role, ToolName: m.toolName, Timestamp: s.started + float64(i*30)}
				if m.content != "" || m.toolCalls == "" {
					msg.Content = m.content
				}
				if m.toolCalls != "" {
					if err := json.Unmarshal([]byte(m.toolCalls), &msg.ToolCalls); err != nil {
						t.Fatal(err)
					}
				}
				id := o.AppendMessageTx(tx, s.id, msg)
				if m.inactive {
					// Rewound, as Hermes' /undo leaves a row.
					exec("UPDATE messages SET active = 0, compacted = 0 WHERE id = ?", id)
					exec("UPDATE sessions SET message_count = message_count - 1, rewind_count = rewind_count + 1 WHERE id = ?", s.id)
				}
			}
			if s.endReason != "" {
				o.EndSessionTx(tx, s.id, s.endReason, s.started+1800)
			} else {
				exec("UPDATE sessions SET ended_at = ? WHERE id = ?", s.started+1800, s.id)
			}
		}
		for _, s := range knownSessions() {
			addSession(s)
		}
		rng := rand.New(rand.NewSource(7))
		for i := 0; i < bulkSessions; i++ {
			// Titles are unique in Hermes; a lineage numbers its repeats.
			title := fmt.Sprintf("Topic %d", i%97)
			if i >= 97 {
				title += fmt.Sprintf(" #%d", i/97+1)
			}
			s := fixtureSession{id: fmt.Sprintf("bulk_%05d", i), source: []string{"cli", "telegram", "cron", "discord"}[i%4],
				title: title, started: baseTime - float64(i+1)*7200}
			for j := 0; j < bulkMsgs; j++ {
				words := make([]string, 8+rng.Intn(24))
				for w := range words {
					words[w] = filler[rng.Intn(len(filler))]
				}
				if j%10 == 3 {
					words = append(words, fmt.Sprintf("ticket%d", i))
				}
				role := "user"
				if j%2 == 1 {
					role = "assistant"
				}
				s.msgs = append(s.msgs, fixtureMsg{role: role, content: strings.Join(words, " ")})
			}
			addSession(s)
		}
	})
}

// TestMain removes the databases shared between tests and benchmarks.
func TestMain(m *testing.M) {
	code := m.Run()
	for _, dir := range []string{bench100k.home, sharedFixture.dir} {
		if dir != "" {
			os.RemoveAll(dir)
		}
	}
	os.Exit(code)
}

// TestWriteRegistryFixture regenerates the small state.db under
// mcpserver/testdata/home when run with -write-fixtures.
func TestWriteRegistryFixture(t *testing.T) {
	if !*writeFixtures {
		t.Skip("run with -write-fixtures to regenerate ../testdata/home/state.db")
	}
	buildStateDB(t, filepath.Join("..", "..", "mcpserver", "testdata", "home", "state.db"), 3, 6, false)
}
