package nudge

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/hermes-go/hermes/agentcore"
	"github.com/hermes-go/hermes/agentcore/native"
)

// The review prompts follow the intent of the original's
// agent/background_review.py (the exact wording is ours): look back over
// the conversation, save what is worth keeping with the tool, or say there
// is nothing.
const (
	MemoryReviewPrompt = "Review the conversation above and consider saving to memory if appropriate.\n\n" +
		"Focus on:\n" +
		"1. Has the user revealed things about themselves — their persona, preferences, or personal details worth remembering?\n" +
		"2. Has the user expressed expectations about how you should behave, their work style, or how they want you to operate?\n\n" +
		"If something stands out, save it using the memory tool. If nothing is worth saving, just say 'Nothing to save.' and stop."
	SkillReviewPrompt = "Review the conversation above and consider saving or updating a skill if appropriate.\n\n" +
		"Focus on: was a non-trivial approach used to complete a task that took trial and error, or a change of course " +
		"because of what was found along the way, or did the user expect a different method or outcome?\n\n" +
		"If a relevant skill already exists, update it with what you learned using skill_manage. Otherwise create a new " +
		"skill if the approach is reusable. If nothing is worth saving, just say 'Nothing to save.' and stop."
	CombinedReviewPrompt = "Review the conversation above for two things.\n\n" +
		"Memory: has the user revealed preferences, personal details or expectations about how you should work? " +
		"If so, save them with the memory tool.\n\n" +
		"Skills: was a non-trivial, reusable approach found through trial and error or a change of course? " +
		"If so, create or update a skill with skill_manage.\n\n" +
		"If nothing is worth saving, just say 'Nothing to save.' and stop."
)

// Prompt returns the review prompt for due ("" when nothing is due).
func Prompt(due Review) string {
	switch {
	case due.Memory && due.Skills:
		return CombinedReviewPrompt
	case due.Memory:
		return MemoryReviewPrompt
	case due.Skills:
		return SkillReviewPrompt
	}
	return ""
}

// RunFunc runs one turn: prompt as the user message after history. The
// native runtime's RunTurn has this shape.
type RunFunc func(ctx context.Context, history []agentcore.Message, prompt string) (agentcore.Result, error)

// NativeRunner builds the review's runner on the native runtime, whatever
// runtime the conversation itself uses (the original downgrades its review
// fork the same way). opts should carry the memory and skill_manage tools.
func NativeRunner(opts native.Options) (RunFunc, error) {
	rt, err := native.New(opts)
	if err != nil {
		return nil, fmt.Errorf("nudge: the background review needs the native runtime: %w", err)
	}
	return rt.RunTurn, nil
}

// Outcome reports one finished review to the caller (the library never
// prints; a CLI can say "memory updated").
type Outcome struct {
	Review Review
	Result agentcore.Result
	Err    error
}

// Reviewer runs background reviews. Each review is one turn on its own
// goroutine, owned by the Reviewer's context: cancelling that context stops
// the reviews, Close waits for them.
type Reviewer struct {
	run    RunFunc
	onDone func(Outcome)

	ctx context.Context
	wg  sync.WaitGroup

	mu     sync.Mutex
	closed bool
}

// ErrClosed is returned by Start after Close.
var ErrClosed = errors.New("nudge: reviewer closed; create a new Reviewer for a new conversation")

// NewReviewer returns a Reviewer whose reviews live under ctx. onDone, when
// set, is called once per review from the review's goroutine.
func NewReviewer(ctx context.Context, run RunFunc, onDone func(Outcome)) *Reviewer {
	return &Reviewer{run: run, onDone: onDone, ctx: ctx}
}

// Start runs the due review over a snapshot of messages in the background.
// It returns false when nothing is due. The snapshot is copied, so the
// caller may keep changing its transcript.
func (r *Reviewer) Start(messages []agentcore.Message, due Review) (bool, error) {
	prompt := Prompt(due)
	if prompt == "" {
		return false, nil
	}
	if r.run == nil {
		return false, errors.New("nudge: reviewer has no runner; build one with NativeRunner")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false, ErrClosed
	}
	snapshot := copyMessages(messages)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		res, err := r.run(r.ctx, snapshot, prompt)
		if err != nil {
			err = fmt.Errorf("nudge: background review: %w", err)
		}
		if r.onDone != nil {
			r.onDone(Outcome{Review: due, Result: res, Err: err})
		}
	}()
	return true, nil
}

// Close refuses new reviews and waits for the running ones; cancel the
// Reviewer's context first to stop them instead of letting them finish.
func (r *Reviewer) Close() error {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.wg.Wait()
	return nil
}

func copyMessages(in []agentcore.Message) []agentcore.Message {
	out := make([]agentcore.Message, len(in))
	for i, m := range in {
		out[i] = m
		out[i].ToolCalls = append([]agentcore.ToolCall(nil), m.ToolCalls...)
	}
	return out
}
