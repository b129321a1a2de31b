package kanban_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/toolsets/kanban"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// BenchmarkKanbanCompleteConcurrent measures kanban_complete while four
// writers complete tasks on one board at once, each call opening the board,
// taking the write lock and promoting children, as separate worker
// processes would. It reports the median and 95th-percentile latency.
func BenchmarkKanbanCompleteConcurrent(b *testing.B) {
	const writers = 4
	ctx := context.Background()
	home := b.TempDir()
	board := openBoard(b, filepath.Join(home, "kanban.db"))
	// A board with history: completed tasks and open children make the
	// promotion scan do real work.
	for i := 0; i < 200; i++ {
		if _, err := board.CreateTask(ctx, kanban.NewTask{Title: fmt.Sprintf("old %d", i), Assignee: "w"}); err != nil {
			b.Fatal(err)
		}
	}
	ids := make([]string, b.N)
	for i := range ids {
		id, err := board.CreateTask(ctx, kanban.NewTask{Title: fmt.Sprintf("task %d", i), Assignee: "w"})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := board.CreateTask(ctx, kanban.NewTask{Title: "child", Assignee: "w", Parents: []string{id}}); err != nil {
			b.Fatal(err)
		}
		if _, err := board.ClaimTask(ctx, id, "host:1", time.Hour); err != nil {
			b.Fatal(err)
		}
		ids[i] = id
	}
	complete := func() tooldef.Handler {
		ts := kanban.Toolset(kanban.Options{Home: home, Getenv: func(string) string { return "" }})
		for _, t := range ts.Tools {
			if t.Name == "kanban_complete" {
				return t.Handler
			}
		}
		b.Fatal("no kanban_complete")
		return nil
	}

	lat := make([]time.Duration, len(ids))
	var wg sync.WaitGroup
	b.ResetTimer()
	for w := 0; w < writers; w++ {
		wg.Add(1)
		handler := complete()
		go func(w int) {
			defer wg.Done()
			for i := w; i < len(ids); i += writers {
				args, _ := json.Marshal(map[string]any{"task_id": ids[i], "summary": "done", "metadata": map[string]any{"n": i}})
				start := time.Now()
				res, err := handler(ctx, args)
				lat[i] = time.Since(start)
				if err != nil || res.IsError {
					b.Errorf("complete %s: %v %v", ids[i], err, res.Value)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
}
