package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/hermes-go/hermes/agentcore"
)

// The chat commands only the codex runtime has. Each fails with
// ErrNotCodex on the native runtime.

// ErrNotCodex is returned by the codex-only commands on the native runtime.
var ErrNotCodex = errors.New("this command needs the codex runtime (/codex-runtime on, then /new)")

// OnCodex reports whether the conversation runs on the codex runtime.
func (c *Conversation) OnCodex() bool { return c.codex != nil }

// CodexSteerRunning adds text to the turn codex is running, or fails with
// bridge.ErrNoTurn.
func (c *Conversation) CodexSteerRunning(ctx context.Context, text string) error {
	if c.codex == nil {
		return ErrNotCodex
	}
	return c.codex.SteerRunning(ctx, text)
}

// CodexBranch forks the codex thread and continues in the fork, which is
// saved as the session's thread; it returns the fork's id.
func (c *Conversation) CodexBranch(ctx context.Context) (string, error) {
	if c.codex == nil {
		return "", ErrNotCodex
	}
	c.turnMu.Lock()
	defer c.turnMu.Unlock()
	id, err := c.codex.Branch(ctx)
	if err != nil {
		return "", err
	}
	c.thread = id
	if c.store != nil {
		if err := c.store.SetCodexThread(context.WithoutCancel(ctx), c.meta.ID, id); err != nil {
			c.notice(fmt.Sprintf("could not save the codex thread id: %v", err))
		}
	}
	return id, nil
}

// CodexReview runs codex's reviewer on the uncommitted changes (or with
// instructions) as a turn of the thread, recorded like one.
func (c *Conversation) CodexReview(ctx context.Context, instructions string) (agentcore.Result, error) {
	if c.codex == nil {
		return agentcore.Result{}, ErrNotCodex
	}
	c.turnMu.Lock()
	defer c.turnMu.Unlock()
	res, err := c.codex.Review(ctx, instructions)
	if err != nil {
		return res, err
	}
	res.SessionID = c.meta.ID
	c.history = append(c.history, res.Messages...)
	c.record(ctx, res, res.Messages)
	return res, nil
}

// CodexCompress has codex compact the thread's context.
func (c *Conversation) CodexCompress(ctx context.Context) (agentcore.Result, error) {
	if c.codex == nil {
		return agentcore.Result{}, ErrNotCodex
	}
	c.turnMu.Lock()
	defer c.turnMu.Unlock()
	res, err := c.codex.Compress(ctx)
	if err != nil {
		return res, err
	}
	res.SessionID = c.meta.ID
	// The compaction item is codex's bookkeeping, not conversation.
	c.record(ctx, res, nil)
	return res, nil
}
