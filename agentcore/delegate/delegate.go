// Package delegate is Hermes' delegate_task tool: the agent hands one goal,
// or a batch of independent goals, to sub-agents, each a fresh conversation
// (no parent history) that runs with tools and reports back a summary.
//
// The tool is declared once as a tooldef.Tool, so the codex runtime can offer
// it as a dynamic tool (codexrt.DynamicTools) and the native runtime can
// serve it next to its MCP tools. What a sub-agent is, is the caller's
// choice: Options.Run runs one; NativeRunner builds a Run on the native
// runtime.
//
// Sub-agents are leaves: they never get delegate_task themselves. Two things
// ensure it. The caller builds Run from tools that do not include
// delegate_task (NativeRunner also hides a tool of that name from the
// sub-agent, in case the caller's tool set has one), and the handler refuses
// a call whose context already belongs to a delegated task (TaskFromContext),
// so a Run that leaks the tool back to its sub-agent still cannot recurse.
//
// Differences from the Python Hermes: there is no ACP transport here, so the
// acp_command/acp_args parameters are not offered; role accepts only "leaf"
// (no orchestrator sub-agents); per-task toolsets are offered only when the
// caller names toolsets it can honour (Options.Toolsets).
package delegate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/agentcore"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// Name is the tool's wire name.
const Name = "delegate_task"

// ToolsetName is the toolset delegate_task belongs to, as in Hermes.
const ToolsetName = "delegation"

// Defaults for Options.
const (
	// DefaultMaxConcurrent is Hermes' delegation.max_concurrent_children.
	DefaultMaxConcurrent = 3
	// DefaultTimeout bounds one sub-agent.
	DefaultTimeout = 10 * time.Minute
	// DefaultMaxTasks bounds one batch.
	DefaultMaxTasks = 10
)

// Statuses a task can end in.
const (
	StatusCompleted   = "completed"
	StatusFailed      = "failed"
	StatusInterrupted = "interrupted"
	StatusTimeout     = "timeout"
)

// RunFunc runs one sub-agent: a fresh conversation whose first user message
// is built from goal and context (UserMessage does it the standard way). It
// must return when ctx ends. An error, or a Result that is not Completed,
// marks the task failed (or interrupted/timeout when ctx ended); the task's
// details (toolsets, role, index) are in TaskFromContext(ctx).
type RunFunc func(ctx context.Context, goal, context string) (agentcore.Result, error)

// Options configure the tool.
type Options struct {
	// Run runs one sub-agent. Required.
	Run RunFunc
	// MaxConcurrent bounds the sub-agents running at once within one call;
	// 0 means DefaultMaxConcurrent.
	MaxConcurrent int
	// Timeout bounds each sub-agent; 0 means DefaultTimeout. A sub-agent
	// that overruns ends with status "timeout".
	Timeout time.Duration
	// MaxTasks bounds the tasks in one call; 0 means DefaultMaxTasks.
	MaxTasks int
	// Toolsets are the toolset names Run can restrict a sub-agent to (it
	// reads them from TaskFromContext). Empty leaves the toolsets
	// parameter out of the schema: a model must not be offered a
	// restriction nobody applies.
	Toolsets []string
}

// Task is one delegated task as the handler resolved it.
type Task struct {
	// Index is the task's position in the batch (0 for a single goal).
	Index    int
	Goal     string
	Context  string
	Toolsets []string
	Role     string
}

type taskKey struct{}

// TaskFromContext returns the delegated task a context belongs to; ok is
// false outside a sub-agent run.
func TaskFromContext(ctx context.Context) (Task, bool) {
	t, ok := ctx.Value(taskKey{}).(Task)
	return t, ok
}

// UserMessage is the first (and only) user message of a sub-agent's
// conversation: the goal, then the context when there is one.
func UserMessage(goal, context string) string {
	goal, context = strings.TrimSpace(goal), strings.TrimSpace(context)
	if context == "" {
		return goal
	}
	return goal + "\n\nContext:\n" + context
}

// TaskResult is one entry of the tool's results, in the Python Hermes'
// shape plus error.
type TaskResult struct {
	TaskIndex       int     `json:"task_index"`
	Status          string  `json:"status"`
	Summary         string  `json:"summary"`
	APICalls        int     `json:"api_calls"`
	DurationSeconds float64 `json:"duration_seconds"`
	Model           string  `json:"model,omitempty"`
	// ExitReason is "completed", "error", "interrupted" or "timeout".
	ExitReason string `json:"exit_reason"`
	Tokens     Tokens `json:"tokens"`
	// Error says why the task did not complete; empty when it did.
	Error string `json:"error,omitempty"`
}

// Tokens is a sub-agent's token usage.
type Tokens struct {
	Input  int64 `json:"input"`
	Output int64 `json:"output"`
}

// Output is the tool's result.
type Output struct {
	Results              []TaskResult `json:"results"`
	TotalDurationSeconds float64      `json:"total_duration_seconds"`
}

// abandonAfter is how long the handler waits, once a task's context has
// ended, for a Run that ignores cancellation before reporting the task and
// leaving the Run to finish on its own.
var abandonAfter = 5 * time.Second

// Toolset returns the delegation toolset holding Tool(opts), for callers
// (codexrt.DynamicTools) that take toolsets.
func Toolset(opts Options) tooldef.Toolset {
	return tooldef.Toolset{
		Name:        ToolsetName,
		Description: "Hand goals to sub-agents that work in fresh conversations with tools and report back.",
		Tools:       []tooldef.Tool{Tool(opts)},
	}
}

// Tool returns the delegate_task declaration. A nil Run makes Check fail,
// so the tool is not offered.
func Tool(opts Options) tooldef.Tool {
	if opts.MaxConcurrent <= 0 {
		opts.MaxConcurrent = DefaultMaxConcurrent
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.MaxTasks <= 0 {
		opts.MaxTasks = DefaultMaxTasks
	}
	h := &handler{opts: opts}
	return tooldef.Tool{
		Name:        Name,
		Title:       "Delegate to sub-agents",
		Description: description(opts),
		InputSchema: inputSchema(opts),
		// A sub-agent runs with tools that write files, run commands and
		// reach the web, and it is a model call: nothing about it is
		// read-only, idempotent or closed-world.
		Hints:   tooldef.Hints{Destructive: true, OpenWorld: true},
		Handler: h.handle,
		Check: func() error {
			if opts.Run == nil {
				return errors.New("no sub-agent runner configured")
			}
			return nil
		},
	}
}

func description(opts Options) string {
	var b strings.Builder
	b.WriteString("Delegate work to sub-agents. Each sub-agent starts a fresh conversation: it does NOT see this " +
		"conversation, only the goal and context you give it, so put in context everything it needs (file paths, " +
		"what you already know, constraints, what to report). It works with tools on its own and returns a " +
		"summary of what it did and found. Use it to keep large, self-contained pieces of work (research, " +
		"investigation, a change in one area) out of your own context. Give one task with goal (and context), or " +
		"several independent tasks at once with tasks: ")
	fmt.Fprintf(&b, "up to %d per call, run in parallel (%d at a time), each limited to %s. ",
		opts.MaxTasks, opts.MaxConcurrent, opts.Timeout)
	b.WriteString("Sub-agents cannot delegate further (role is always leaf) and cannot ask the user anything. ")
	if len(opts.Toolsets) > 0 {
		b.WriteString("toolsets restricts a sub-agent to the named toolsets; without it, it gets your tools minus delegate_task. ")
	} else {
		b.WriteString("A sub-agent gets your tools minus delegate_task. ")
	}
	b.WriteString("The result lists each task's status (completed, failed, interrupted or timeout), summary, " +
		"error and usage; one failed task does not fail the others. (ACP sub-agents, acp_command/acp_args in " +
		"other Hermes builds, are not available here.)")
	return b.String()
}

func inputSchema(opts Options) json.RawMessage {
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	role := map[string]any{"type": "string", "enum": []string{"leaf"},
		"description": "Sub-agent role. Only \"leaf\": sub-agents cannot delegate further."}
	task := map[string]any{
		"goal":    map[string]any{"type": "string", "minLength": 1, "description": "What this sub-agent must achieve, stated so it can tell when it is done."},
		"context": str("Everything the sub-agent needs to know: it does not see your conversation."),
		"role":    role,
	}
	props := map[string]any{
		"goal":    str("The task for a single sub-agent. Ignored when tasks is given."),
		"context": str("Background for the single sub-agent: it does not see your conversation."),
		"tasks": map[string]any{
			"type":        "array",
			"minItems":    1,
			"maxItems":    opts.MaxTasks,
			"description": "Independent tasks run in parallel, one sub-agent each. Use instead of goal.",
			"items": map[string]any{
				"type":                 "object",
				"properties":           task,
				"required":             []string{"goal"},
				"additionalProperties": false,
			},
		},
		"role": role,
	}
	if len(opts.Toolsets) > 0 {
		ts := map[string]any{
			"type":        "array",
			"items":       map[string]any{"type": "string", "enum": opts.Toolsets},
			"uniqueItems": true,
			"description": "Restrict the sub-agent to these toolsets.",
		}
		props["toolsets"] = ts
		task["toolsets"] = ts
	}
	doc := map[string]any{
		"type":                 "object",
		"properties":           props,
		"additionalProperties": false,
		"anyOf": []any{
			map[string]any{"required": []string{"goal"}, "properties": map[string]any{"goal": map[string]any{"minLength": 1}}},
			map[string]any{"required": []string{"tasks"}},
		},
	}
	b, err := json.Marshal(doc)
	if err != nil {
		panic(err) // static maps of strings and ints
	}
	return b
}

type args struct {
	Goal     string   `json:"goal"`
	Context  string   `json:"context"`
	Toolsets []string `json:"toolsets"`
	Role     string   `json:"role"`
	Tasks    []struct {
		Goal     string   `json:"goal"`
		Context  string   `json:"context"`
		Toolsets []string `json:"toolsets"`
		Role     string   `json:"role"`
	} `json:"tasks"`
}

type handler struct{ opts Options }

func (h *handler) handle(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	if _, nested := TaskFromContext(ctx); nested {
		return tooldef.Errorf("delegate_task is not available to sub-agents: do the work yourself with your other tools"), nil
	}
	if h.opts.Run == nil {
		return tooldef.Errorf("delegate_task has no sub-agent runner in this session"), nil
	}
	a, err := tooldef.DecodeArgs[args](raw)
	if err != nil {
		return tooldef.Errorf("%v", err), nil
	}
	tasks, err := h.resolve(a)
	if err != nil {
		return tooldef.Errorf("%v", err), nil
	}
	return tooldef.OK(h.runAll(ctx, tasks)), nil
}

// resolve turns the arguments into tasks: tasks wins over goal, and a
// task without toolsets or role takes the top-level ones.
func (h *handler) resolve(a args) ([]Task, error) {
	role := a.Role
	if role == "" {
		role = "leaf"
	}
	var tasks []Task
	if len(a.Tasks) > 0 {
		if len(a.Tasks) > h.opts.MaxTasks {
			return nil, fmt.Errorf("too many tasks: %d given, at most %d per call; split the batch", len(a.Tasks), h.opts.MaxTasks)
		}
		for i, t := range a.Tasks {
			tt := Task{Index: i, Goal: t.Goal, Context: t.Context, Toolsets: t.Toolsets, Role: t.Role}
			if tt.Toolsets == nil {
				tt.Toolsets = a.Toolsets
			}
			if tt.Role == "" {
				tt.Role = role
			}
			tasks = append(tasks, tt)
		}
	} else {
		tasks = []Task{{Goal: a.Goal, Context: a.Context, Toolsets: a.Toolsets, Role: role}}
	}
	for _, t := range tasks {
		if strings.TrimSpace(t.Goal) == "" {
			if len(a.Tasks) > 0 {
				return nil, fmt.Errorf("tasks[%d].goal is empty; give every task a goal", t.Index)
			}
			return nil, errors.New("give a goal, or tasks with a goal each")
		}
		if t.Role != "leaf" {
			return nil, fmt.Errorf("role %q is not supported: sub-agents here are always leaf", t.Role)
		}
	}
	return tasks, nil
}

// runAll runs the tasks, at most MaxConcurrent at a time, and reports them
// in task order.
func (h *handler) runAll(ctx context.Context, tasks []Task) Output {
	start := time.Now()
	out := Output{Results: make([]TaskResult, len(tasks))}
	sem := make(chan struct{}, h.opts.MaxConcurrent)
	var wg sync.WaitGroup
	for i, t := range tasks {
		wg.Go(func() {
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
			case <-ctx.Done():
				out.Results[i] = TaskResult{TaskIndex: t.Index, Status: StatusInterrupted, ExitReason: StatusInterrupted,
					Error: "interrupted before the sub-agent started: " + ctx.Err().Error()}
				return
			}
			out.Results[i] = h.runOne(ctx, t)
		})
	}
	wg.Wait()
	out.TotalDurationSeconds = seconds(time.Since(start))
	return out
}

type runOutcome struct {
	res agentcore.Result
	err error
}

func (h *handler) runOne(parent context.Context, t Task) TaskResult {
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.WithValue(parent, taskKey{}, t), h.opts.Timeout)
	defer cancel()
	done := make(chan runOutcome, 1)
	go func() {
		var o runOutcome
		defer func() {
			if r := recover(); r != nil {
				o.err = fmt.Errorf("sub-agent crashed (a bug in Hermes): %v", r)
			}
			done <- o
		}()
		o.res, o.err = h.opts.Run(ctx, t.Goal, t.Context)
	}()

	var o runOutcome
	abandoned := false
	select {
	case o = <-done:
	case <-ctx.Done():
		select {
		case o = <-done:
		case <-time.After(abandonAfter):
			abandoned = true
		}
	}
	tr := TaskResult{
		TaskIndex:       t.Index,
		Summary:         strings.TrimSpace(o.res.FinalResponse),
		APICalls:        o.res.APICalls,
		DurationSeconds: seconds(time.Since(start)),
		Model:           o.res.Model,
		Tokens:          Tokens{Input: o.res.InputTokens, Output: o.res.OutputTokens},
	}
	switch {
	case parent.Err() != nil && (o.err != nil || !o.res.Completed || abandoned):
		tr.Status = StatusInterrupted
		tr.Error = "the delegating turn was interrupted: " + parent.Err().Error()
	case errors.Is(ctx.Err(), context.DeadlineExceeded) && (o.err != nil || !o.res.Completed || abandoned):
		tr.Status = StatusTimeout
		tr.Error = fmt.Sprintf("the sub-agent did not finish within %s; give it a smaller goal or split the task", h.opts.Timeout)
	case o.err != nil:
		tr.Status = StatusFailed
		tr.Error = o.err.Error()
	case o.res.Completed:
		tr.Status = StatusCompleted
	case o.res.Interrupted:
		tr.Status = StatusInterrupted
		tr.Error = nonEmpty(o.res.Error, "the sub-agent was interrupted")
	default:
		tr.Status = StatusFailed
		tr.Error = nonEmpty(o.res.Error, "the sub-agent stopped without a final answer")
	}
	tr.ExitReason = tr.Status
	if tr.Status == StatusFailed {
		tr.ExitReason = "error"
	}
	if abandoned {
		tr.Error += " (the sub-agent did not stop when asked and was left behind)"
	}
	return tr
}

func nonEmpty(s, fallback string) string {
	if s != "" {
		return s
	}
	return fallback
}

func seconds(d time.Duration) float64 { return math.Round(d.Seconds()*100) / 100 }
