package kanban

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/hermes-go/hermes/internal/redact"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// fail is the original's tool_error shape.
func fail(format string, args ...any) tooldef.Result {
	return tooldef.Failure(map[string]any{"error": fmt.Sprintf(format, args...)})
}

func ok(fields map[string]any) tooldef.Result {
	fields["ok"] = true
	return tooldef.OK(fields)
}

// finish turns an operation's error into a result: refusals the model can
// act on become error results, anything else stays a Go error.
func finish(tool string, err error) (tooldef.Result, error) {
	var ie *InputError
	if errors.As(err, &ie) {
		return fail("%s: %s", tool, ie.Msg), nil
	}
	return tooldef.Result{}, fmt.Errorf("%s: %w", tool, err)
}

type openMode int

const (
	// readBoard opens read-only; a missing board is not created.
	readBoard openMode = iota
	// updateBoard opens for writing an existing board; a missing board is
	// not created, since there is nothing on it to update.
	updateBoard
	// createBoard opens for writing and creates the default (or a pinned)
	// board when it is missing.
	createBoard
)

// open resolves and opens the board for one call. A missing board comes
// back as a nil *Board (except with createBoard), which callers answer as
// "no such task" without leaving a file behind.
func (k *kit) open(ctx context.Context, tool, board string, mode openMode) (*Board, tooldef.Result, bool, error) {
	ref, err := ResolveBoard(k.opts.Home, board, k.getenv)
	if err != nil {
		var ie *InputError
		if errors.As(err, &ie) {
			return nil, fail("%s: %s", tool, ie.Msg), true, nil
		}
		return nil, tooldef.Result{}, false, err
	}
	opts := BoardOptions{ReadOnly: mode == readBoard, BusyTimeout: k.opts.BusyTimeout, Now: k.opts.Now}
	if mode == createBoard {
		opts.Create = ref.mayCreate()
	}
	b, err := OpenBoard(ctx, ref.Path, opts)
	switch {
	case err == nil:
		return b, tooldef.Result{}, false, nil
	case errors.Is(err, fs.ErrNotExist) && mode != createBoard:
		return nil, tooldef.Result{}, false, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, fail("%s: board '%s' does not exist (%s); create it with `hermes kanban boards create %s` or omit board", tool, ref.Slug, ref.Path, ref.Slug), true, nil
	}
	return nil, tooldef.Result{}, false, err
}

func (k *kit) okWithRun(ctx context.Context, b *Board, tool, tid string) (tooldef.Result, error) {
	run, err := b.LatestRun(ctx, tid)
	if err != nil {
		return finish(tool, err)
	}
	var runID any
	if run != nil {
		runID = run.ID
	}
	return ok(map[string]any{"task_id": tid, "run_id": runID}), nil
}

// redactValue masks secrets in every string of a JSON-like value: handoffs
// are stored on a shared board and shown to other agents and people.
func redactValue(v any) any {
	switch x := v.(type) {
	case string:
		return redact.String(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for key, val := range x {
			out[key] = redactValue(val)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, val := range x {
			out[i] = redactValue(val)
		}
		return out
	}
	return v
}

func cleanList(in []string) []string {
	out := []string{}
	for _, s := range in {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
