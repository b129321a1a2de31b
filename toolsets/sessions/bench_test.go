package sessions_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// bench100k is a state.db of 2,000 sessions of 50 messages (100,000
// messages plus the known sessions), built once per test binary because a
// benchmark function runs several times; TestMain removes it.
var bench100k = struct {
	once sync.Once
	home string
}{}

func benchHome(b *testing.B) string {
	bench100k.once.Do(func() {
		dir, err := os.MkdirTemp("", "session-search-bench-")
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		buildStateDB(b, filepath.Join(dir, "state.db"), 2000, 50, true)
		b.Logf("built a 100k-message state.db in %v", time.Since(start))
		bench100k.home = dir
	})
	return bench100k.home
}

// runSearchBench calls session_search with each args in turn, b.N times in
// all, and reports the median and 95th-percentile latency.
func runSearchBench(b *testing.B, calls []map[string]any) {
	home := benchHome(b)
	h := newHarness(b, home, nil)
	raws := make([][]byte, len(calls))
	for i, c := range calls {
		raws[i], _ = json.Marshal(c)
	}
	lat := make([]time.Duration, b.N)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		res, err := h.tool.Handler(ctx, raws[i%len(raws)])
		lat[i] = time.Since(start)
		if err != nil || res.IsError {
			b.Fatalf("%s: %v %v", raws[i%len(raws)], err, res.Value)
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
}

// BenchmarkSessionSearchDiscover100k: full-text discovery over 100k
// messages, from rare words to words in most messages.
func BenchmarkSessionSearchDiscover100k(b *testing.B) {
	var calls []map[string]any
	for i := 0; i < 20; i++ {
		calls = append(calls, map[string]any{"query": fmt.Sprintf("ticket%d", i*97)})
	}
	calls = append(calls,
		map[string]any{"query": "kubernetes rollout"},
		map[string]any{"query": "pipeline worker"},
		map[string]any{"query": "latency", "limit": 10},
		map[string]any{"query": "release OR review", "sort": "newest"},
	)
	runSearchBench(b, calls)
}

// BenchmarkSessionSearchScroll100k: reading windows and whole sessions.
func BenchmarkSessionSearchScroll100k(b *testing.B) {
	known := 0
	for _, s := range knownSessions() {
		known += len(s.msgs)
	}
	var calls []map[string]any
	for i := 0; i < 20; i++ {
		n := i * 97
		// Bulk session n's messages follow the known ones, 50 ids each.
		calls = append(calls, map[string]any{"session_id": fmt.Sprintf("bulk_%05d", n), "around_message_id": known + n*50 + 25, "window": 5})
		calls = append(calls, map[string]any{"session_id": fmt.Sprintf("bulk_%05d", n+1)})
	}
	calls = append(calls, map[string]any{}, map[string]any{"limit": 50})
	runSearchBench(b, calls)
}
