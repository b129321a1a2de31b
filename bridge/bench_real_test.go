//go:build unix

package bridge

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/fakeresponses"
)

// BenchmarkRealCodexTurn runs text turns through the real codex. It reports
// the time from the fake model's last SSE byte to RunTurn returning (codex's
// own processing included), the part of it after the session received
// turn/completed (the bridge alone), and when the agent message's
// item/completed arrived relative to the last byte.
func BenchmarkRealCodexTurn(b *testing.B) {
	r := newRealSession(b, func(c *SessionConfig) { c.Codex.Logger = nil })
	var (
		mu        sync.Mutex
		completed time.Time // turn/completed reached the session
		message   time.Time // the agent message's item/completed did
	)
	r.hook(func(n Notification) {
		mu.Lock()
		defer mu.Unlock()
		switch n.Method {
		case "turn/completed":
			completed = time.Now()
		case "item/completed":
			if message.IsZero() && strings.Contains(string(n.Params), `"type":"agentMessage"`) {
				message = time.Now()
			}
		}
	})
	ctx := context.Background()
	r.fake.Enqueue(fakeresponses.Text("warm up"))
	if res := r.RunTurn(ctx, TextInput("warm up")); res.Err != nil {
		b.Fatal(res.Err)
	}
	var afterByte, afterCompleted, toMessage time.Duration
	b.ResetTimer()
	for i := range b.N {
		mu.Lock()
		message = time.Time{}
		mu.Unlock()
		r.fake.Enqueue(fakeresponses.Text("The answer is 42."))
		res := r.RunTurn(ctx, TextInput("question"))
		end := time.Now()
		if res.Err != nil || res.FinalText != "The answer is 42." {
			b.Fatalf("turn: %+v", res)
		}
		req, err := r.fake.WaitRequest(ctx, i+2)
		if err != nil {
			b.Fatal(err)
		}
		lastByte, err := req.StreamEnd(ctx)
		if err != nil {
			b.Fatal(err)
		}
		mu.Lock()
		afterByte += end.Sub(lastByte)
		afterCompleted += end.Sub(completed)
		toMessage += message.Sub(lastByte)
		mu.Unlock()
	}
	b.ReportMetric(float64(afterByte.Microseconds())/float64(b.N)/1000, "ms-last-SSE-byte-to-return")
	b.ReportMetric(float64(afterCompleted.Microseconds())/float64(b.N), "µs-turn/completed-to-return")
	// How long codex itself takes to report the message (negative: it
	// streamed it before the response ended).
	b.ReportMetric(float64(toMessage.Microseconds())/float64(b.N)/1000, "ms-last-byte-to-item/completed")
}
