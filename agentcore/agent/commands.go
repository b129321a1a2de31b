package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hermes-go/hermes/agentcore"
	"github.com/hermes-go/hermes/agentcore/native"
	"github.com/hermes-go/hermes/internal/hermeshome"
)

// rewinder is a Store that can take back the last exchange the way Hermes
// rewinds a session (statedb.Store).
type rewinder interface {
	RewindLastUser(ctx context.Context, sessionID string) (string, bool, error)
}

// ErrNothingToRetry is returned by Retry when the conversation has no
// user message yet.
var ErrNothingToRetry = errors.New("no earlier message to retry")

// Retry takes back the last user message and everything answered to it,
// from the conversation and from state.db (where the rows stay, rewound,
// as Hermes' /retry leaves them), and returns the message so the caller
// can send it again. Native runtime only: codex's thread keeps its own
// history, which cannot be taken back.
func (c *Conversation) Retry(ctx context.Context) (string, error) {
	c.turnMu.Lock()
	defer c.turnMu.Unlock()
	if c.codex != nil {
		return "", errors.New("/retry works on the native runtime; codex's thread cannot take a message back (send it again instead)")
	}
	return c.takeBackLocked(ctx)
}

// takeBackLocked takes the last user message and everything after it out
// of the conversation and, rewound as Hermes rewinds, out of state.db's
// transcript; it returns the message. turnMu is held.
func (c *Conversation) takeBackLocked(ctx context.Context) (string, error) {
	last := -1
	for i, m := range c.history {
		if m.Role == "user" {
			last = i
		}
	}
	if last < 0 {
		return "", ErrNothingToRetry
	}
	text := c.history[last].Content
	if rw, ok := c.store.(rewinder); ok && c.store != nil {
		if _, _, err := rw.RewindLastUser(context.WithoutCancel(ctx), c.meta.ID); err != nil {
			return "", fmt.Errorf("take the last exchange back in state.db: %w", err)
		}
	}
	c.history = c.history[:last:last]
	return text, nil
}

// Undo takes back the last exchange, as the original's /undo does: the
// last message and its answer leave the conversation and state.db's
// transcript (the rows are kept, inactive). On codex the thread forgets
// the turn too; files a turn changed stay changed. It returns the message
// taken back ("" when state.db was not kept), or ErrNothingToRetry.
func (c *Conversation) Undo(ctx context.Context) (string, error) {
	c.turnMu.Lock()
	defer c.turnMu.Unlock()
	if c.codex == nil {
		return c.takeBackLocked(ctx)
	}
	if err := c.codex.Undo(ctx); err != nil {
		return "", err
	}
	rw, ok := c.store.(rewinder)
	if !ok || c.store == nil {
		return "", nil
	}
	text, _, err := rw.RewindLastUser(context.WithoutCancel(ctx), c.meta.ID)
	if err != nil {
		return "", fmt.Errorf("codex forgot the last turn, but state.db still shows it: %w", err)
	}
	return text, nil
}

// SwitchModel moves the conversation to another model (and provider, when
// given) for the rest of the session, history kept, as the original's
// /model does; config.yaml is not changed. The endpoint and key come from
// the provider as at start. Native runtime only.
func (c *Conversation) SwitchModel(model, provider string) (agentcore.SessionMeta, error) {
	c.turnMu.Lock()
	defer c.turnMu.Unlock()
	if c.codex != nil {
		return c.meta, errors.New("/model switches models on the native runtime; on codex set model.default in config.yaml and start a /new conversation")
	}
	model, provider = strings.TrimSpace(model), strings.ToLower(strings.TrimSpace(provider))
	cfg := c.nativeOpts.Config
	if provider != "" && provider != cfg.Provider {
		next := native.Config{Model: cmp.Or(model, cfg.Model), Provider: provider, MaxTurns: cfg.MaxTurns, MaxRetries: cfg.MaxRetries}
		resolved, err := next.Resolved(filepath.Join(c.opts.HermesHome, hermeshome.ConfigFile), c.opts.Getenv)
		if err != nil {
			return c.meta, err
		}
		resolved.ReasoningEffort = cfg.ReasoningEffort
		cfg = resolved
	}
	if model != "" {
		cfg.Model = model
	}
	opts := c.nativeOpts
	opts.Config = cfg
	rt, err := native.New(opts)
	if err != nil {
		return c.meta, err
	}
	c.native, c.nativeOpts = rt, opts
	c.cfgMu.Lock()
	c.mainCfg = cfg
	c.cfgMu.Unlock()
	c.meta.Model, c.meta.Provider = cfg.Model, cfg.Provider
	return c.meta, nil
}
