package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Benchmarks of the bridge's own cost:
//
//	go test -run '^$' -bench . -benchtime 200x ./bridge
//
// BenchmarkProjector: notifications per second through the projector alone.
// BenchmarkSessionTurn: a scripted turn of ~100 notifications through the
// whole client and session (relay child, JSON-RPC, dispatcher, projector),
// with the time from the script writing turn/completed to RunTurn returning.
// BenchmarkRealCodexTurn (bench_real_test.go): the time from the fake
// model's last SSE byte to RunTurn returning, real codex included.

// turnNotifications is a realistic turn: user echo, streamed reasoning, a
// command with output, a streamed answer, token usage, completion.
func turnNotifications(turnID string) []Notification {
	var out []Notification
	add := func(method string, params map[string]any) {
		params["threadId"] = "thr_1"
		params["turnId"] = turnID
		b, err := json.Marshal(params)
		if err != nil {
			panic(err)
		}
		out = append(out, Notification{Method: method, Params: b})
	}
	item := func(phase string, it map[string]any) { add("item/"+phase, map[string]any{"item": it}) }
	user := map[string]any{"type": "userMessage", "id": "u", "content": []any{map[string]any{"type": "text", "text": "list the files", "text_elements": []any{}}}}
	item("started", user)
	item("completed", user)
	item("started", map[string]any{"type": "reasoning", "id": "r", "summary": []any{}, "content": []any{}})
	for i := range 20 {
		add("item/reasoning/summaryTextDelta", map[string]any{"itemId": "r", "delta": fmt.Sprintf("thought %d ", i), "summaryIndex": 0})
	}
	item("completed", map[string]any{"type": "reasoning", "id": "r", "summary": []any{"I should list the files with ls and report."}, "content": []any{}})
	cmd := map[string]any{"type": "commandExecution", "id": "call_1", "command": "/bin/bash -lc ls", "cwd": "/work/space",
		"status": "inProgress", "commandActions": []any{map[string]any{"type": "listFiles", "command": "ls"}}, "aggregatedOutput": nil, "exitCode": nil}
	item("started", cmd)
	for i := range 10 {
		add("item/commandExecution/outputDelta", map[string]any{"itemId": "call_1", "delta": fmt.Sprintf("file%d.go\n", i)})
	}
	done := map[string]any{}
	for k, v := range cmd {
		done[k] = v
	}
	done["status"], done["aggregatedOutput"], done["exitCode"] = "completed", "file0.go\nfile1.go\n", 0
	item("completed", done)
	item("started", map[string]any{"type": "agentMessage", "id": "m", "text": ""})
	for i := range 50 {
		add("item/agentMessage/delta", map[string]any{"itemId": "m", "delta": fmt.Sprintf("word%d ", i)})
	}
	item("completed", map[string]any{"type": "agentMessage", "id": "m", "text": "There are ten Go files."})
	usage := map[string]any{"totalTokens": 1500, "inputTokens": 1400, "cachedInputTokens": 1000, "outputTokens": 100}
	add("thread/tokenUsage/updated", map[string]any{"tokenUsage": map[string]any{"total": usage, "last": usage, "modelContextWindow": 272000}})
	return out
}

func BenchmarkProjector(b *testing.B) {
	notes := turnNotifications("turn_1")
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		p := NewProjector()
		for _, n := range notes {
			p.Project(n)
		}
		p.Close()
	}
	b.ReportMetric(float64(b.N*len(notes))/b.Elapsed().Seconds(), "notifications/s")
	b.ReportMetric(float64(len(notes)), "notifications/turn")
}

func BenchmarkSessionTurn(b *testing.B) {
	sc := newAppServer(b)
	var (
		mu       sync.Mutex
		lastSent time.Time
	)
	drained := make(chan struct{}, 1)
	sc.onTurn = func(tc *turnCtx) {
		for _, n := range turnNotifications(tc.ID) {
			sc.writeNote(n)
		}
		// Wait until the session has taken in everything else, so that
		// what is measured is the latency of the final message, not the
		// draining of a backlog.
		<-drained
		mu.Lock()
		lastSent = time.Now()
		mu.Unlock()
		tc.complete("completed", nil)
	}
	var notes atomic.Int64
	sess := sc.session(b, func(c *SessionConfig) {
		c.Codex.Logger = nil
		c.OnEvent = func(n Notification) {
			notes.Add(1)
			if n.Method == "thread/tokenUsage/updated" {
				drained <- struct{}{}
			}
		}
	})
	ctx := context.Background()
	if res := sess.RunTurn(ctx, TextInput("warm up")); res.Err != nil {
		b.Fatal(res.Err)
	}
	var overhead time.Duration
	notes.Store(0)
	b.ResetTimer()
	for range b.N {
		res := sess.RunTurn(ctx, TextInput("list the files"))
		end := time.Now()
		if res.Err != nil || res.ToolIterations != 1 {
			b.Fatalf("turn: %+v", res)
		}
		mu.Lock()
		overhead += end.Sub(lastSent)
		mu.Unlock()
	}
	b.ReportMetric(float64(overhead.Microseconds())/float64(b.N), "µs-completed-to-return")
	b.ReportMetric(float64(notes.Load())/b.Elapsed().Seconds(), "notifications/s")
}
