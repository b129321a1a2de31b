package sessions_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/hermesstate/statetest"
	"github.com/hermes-go/hermes/toolsets/sessions"
)

// logBuffer collects what the toolset logs.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func homeWith(t *testing.T, build func(testing.TB, string)) (home, path string) {
	t.Helper()
	home = t.TempDir()
	path = filepath.Join(home, "state.db")
	build(t, path)
	return home, path
}

func messageContents(v any) []string {
	var out []string
	for _, m := range v.([]any) {
		out = append(out, m.(map[string]any)["content"].(string))
	}
	return out
}

// A state.db Hermes writes at schema 30 (and at 31) is read as Hermes reads
// it: what its search shows, what its transcript reads show, what its
// browse lists.
func TestHermesFiles(t *testing.T) {
	for name, build := range map[string]func(testing.TB, string){"v30": statetest.OriginalV30, "v31": statetest.V31} {
		t.Run(name, func(t *testing.T) {
			home, _ := homeWith(t, build)
			h := newHarness(t, home, nil)
			for _, tc := range []struct {
				query string
				want  []string
			}{
				{statetest.WordMain, []string{statetest.SessMain}},
				// Archived sessions are searched; only browse leaves them out.
				{statetest.WordArchived, []string{statetest.SessArchived}},
				// A compaction archived these rows: out of the model's
				// context, still found.
				{statetest.WordCompacted, []string{statetest.SessCompacted}},
				// Rewound rows and hidden scaffolding are not.
				{statetest.WordRewound, []string{}},
				{statetest.WordHidden, []string{}},
				{statetest.WordMultimodal, []string{statetest.SessMain}},
				// One conversation across the compression, shown once.
				{statetest.WordChain, []string{statetest.SessCompressed}},
				{statetest.WordCJK, []string{statetest.SessCJK}},
				// Two CJK characters cannot use the trigram index: LIKE.
				{"部署", []string{statetest.SessCJK}},
			} {
				got := resultSessions(h.ok(map[string]any{"query": tc.query}))
				if got == nil {
					got = []string{}
				}
				if !slices.Equal(got, tc.want) {
					t.Errorf("query %q: sessions %v, want %v", tc.query, got, tc.want)
				}
			}
			m := h.ok(map[string]any{"query": statetest.WordMultimodal})
			top := m["results"].([]any)[0].(map[string]any)
			if top["snippet"] != statetest.MultimodalText || !slices.Contains(messageContents(top["messages"]), statetest.MultimodalText) {
				t.Errorf("list-of-parts content shown as %q / %q", top["snippet"], messageContents(top["messages"]))
			}
			// The window around a compaction-archived hit holds the archived
			// rows beside it, which a read no longer shows.
			m = h.ok(map[string]any{"query": statetest.WordCompacted})
			if got := messageContents(m["results"].([]any)[0].(map[string]any)["messages"]); len(got) != 4 || got[1] != "The flamingo outage came from DNS." {
				t.Errorf("window around the archived hit: %q", got)
			}

			read := h.ok(map[string]any{"session_id": statetest.SessCompacted})
			if got := messageContents(read["messages"]); len(got) != 2 || !strings.HasPrefix(got[0], "[CONTEXT SUMMARY]") {
				t.Errorf("read shows %q, want the live rows only", got)
			}
			read = h.ok(map[string]any{"session_id": statetest.SessRewound})
			if got := strings.Join(messageContents(read["messages"]), "|"); strings.Contains(got, statetest.WordRewound) {
				t.Errorf("read shows rewound rows: %q", got)
			}

			var listed []string
			for _, s := range h.ok(map[string]any{"limit": 50})["sessions"].([]any) {
				listed = append(listed, s.(map[string]any)["session_id"].(string))
			}
			for _, hidden := range []string{statetest.SessArchived, statetest.SessContinuation, statetest.SessSubagent} {
				if slices.Contains(listed, hidden) {
					t.Errorf("browse lists %s: %v", hidden, listed)
				}
			}
			for _, shown := range []string{statetest.SessMain, statetest.SessCompressed, statetest.SessCron, statetest.SessCJK} {
				if !slices.Contains(listed, shown) {
					t.Errorf("browse leaves out %s: %v", shown, listed)
				}
			}
			// Most recently active first: the main session's activity is
			// stamped after it started, the CJK session started last.
			if listed[0] != statetest.SessCJK {
				t.Errorf("browse order %v", listed)
			}
		})
	}
}

// Scheduled runs come after the user's conversations, as in Hermes.
func TestCronDemoted(t *testing.T) {
	home, path := homeWith(t, statetest.OriginalV30)
	o := statetest.OpenOriginal(t, path)
	o.CreateSession(statetest.Session{ID: "chat_about_reports", Source: "cli", StartedAt: statetest.BaseTime + 20*86400})
	o.AppendMessage("chat_about_reports", statetest.Msg{Role: "user", Timestamp: statetest.BaseTime + 20*86400 + 1,
		Content: "the long weekly summary mentions a nightly job among many other things we discussed at length today"})
	got := resultSessions(newHarness(t, home, nil).ok(map[string]any{"query": statetest.WordCron, "limit": 5}))
	if !slices.Equal(got, []string{"chat_about_reports", statetest.SessCron}) {
		t.Errorf("sessions %v, want the conversation before the cron run", got)
	}
}

// A word glued to CJK text is one token to the word index; Hermes retries
// a query without hits on the trigram index.
func TestGluedWordsFoundByTrigram(t *testing.T) {
	home, path := homeWith(t, statetest.OriginalV30)
	o := statetest.OpenOriginal(t, path)
	o.AppendMessage(statetest.SessCJK, statetest.Msg{Role: "user", Content: "请修改youer服务端的配置", Timestamp: statetest.BaseTime + 30*86400})
	if got := resultSessions(newHarness(t, home, nil).ok(map[string]any{"query": "youer"})); !slices.Equal(got, []string{statetest.SessCJK}) {
		t.Errorf("sessions %v", got)
	}
}

// While Hermes has detached the full-text indexes (fts_stale) they miss
// rows; search then reads messages, as Hermes' does.
func TestDetachedIndexSearchesMessages(t *testing.T) {
	home, path := homeWith(t, statetest.OriginalV30)
	o := statetest.OpenOriginal(t, path)
	for _, q := range []string{
		"DROP TRIGGER messages_fts_insert", "DROP TRIGGER messages_fts_trigram_insert",
		"INSERT INTO state_meta (key, value) VALUES ('fts_stale', '1')",
	} {
		if _, err := o.DB.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	o.AppendMessage(statetest.SessMain, statetest.Msg{Role: "user", Content: "what about the okapi enclosure", Timestamp: statetest.BaseTime + 40*86400})
	h := newHarness(t, home, nil)
	if got := resultSessions(h.ok(map[string]any{"query": "okapi"})); !slices.Equal(got, []string{statetest.SessMain}) {
		t.Errorf("sessions %v", got)
	}
	// A file without the index at all is read the same way.
	execOn(t, path, "DROP TABLE messages_fts")
	if got := resultSessions(h.ok(map[string]any{"query": "okapi"})); !slices.Equal(got, []string{statetest.SessMain}) {
		t.Errorf("without messages_fts: sessions %v", got)
	}
}

// A newer Hermes schema is read, and the toolset says so once in its log.
func TestNewerSchemaNoted(t *testing.T) {
	home, _ := homeWith(t, statetest.V31)
	var logs logBuffer
	ts := sessions.Toolset(sessions.Options{Home: home, Getenv: func(string) string { return "" }, Location: time.UTC,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	for range 2 {
		raw, _ := json.Marshal(map[string]any{"query": statetest.WordMain})
		res, err := ts.Tools[0].Handler(t.Context(), raw)
		if err != nil || res.IsError {
			t.Fatalf("%v %+v", err, res.Value)
		}
	}
	if n := strings.Count(logs.String(), "schema version 31, newer than 30"); n != 1 {
		t.Errorf("logged the note %d times:\n%s", n, logs.String())
	}
}

// Files of earlier releases of ours, never upgraded, are still read.
func TestOursV16Read(t *testing.T) {
	home, _ := homeWith(t, statetest.OursV16)
	h := newHarness(t, home, nil)
	if got := resultSessions(h.ok(map[string]any{"query": statetest.WordOurs})); !slices.Equal(got, []string{statetest.SessOurs}) {
		t.Errorf("sessions %v", got)
	}
}
