package codexrt

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/agentcore"
	"github.com/hermes-go/hermes/bridge"
)

// The chat commands that only the codex runtime has: /steer, /undo,
// /branch, /review and /compress, each one app-server method of the
// conversation's codex thread.

// threadCommands is what the commands need of a session beyond session;
// *bridge.Session has it.
type threadCommands interface {
	Steer(ctx context.Context, input ...bridge.UserInput) (string, error)
	Undo(ctx context.Context, n int) (string, error)
	Fork(ctx context.Context) (string, error)
	Review(ctx context.Context, target bridge.ReviewTarget) bridge.TurnResult
	Compact(ctx context.Context) bridge.TurnResult
}

func (r *Runtime) commands() (threadCommands, error) {
	s, err := r.current()
	if err != nil {
		return nil, err
	}
	tc, ok := s.(threadCommands)
	if !ok {
		return nil, errors.New("codex runtime: this session has no thread commands")
	}
	return tc, nil
}

// Steer adds text to the running turn (turn/steer). When no turn is
// running, the text is not dropped or left waiting: it is sent as a turn of
// its own (which loads the thread first if codex has not), and that turn's
// result is returned; steered reports which of the two happened.
func (r *Runtime) Steer(ctx context.Context, text string) (steered bool, res agentcore.Result, err error) {
	if strings.TrimSpace(text) == "" {
		return false, agentcore.Result{}, errors.New("/steer needs text: /steer <what the running turn should also do>")
	}
	switch err := r.SteerRunning(ctx, text); {
	case err == nil:
		return true, agentcore.Result{}, nil
	case !errors.Is(err, bridge.ErrNoTurn):
		return false, agentcore.Result{}, err
	}
	res, err = r.RunTurn(ctx, text)
	if err == nil {
		res.Notes = append([]string{"no turn was running, so the text was sent as a new message"}, res.Notes...)
	}
	return false, res, err
}

// SteerRunning adds text to the running turn (turn/steer), or fails with
// bridge.ErrNoTurn when none is running.
func (r *Runtime) SteerRunning(ctx context.Context, text string) error {
	if strings.TrimSpace(text) == "" {
		return errors.New("/steer needs text: /steer <what the running turn should also do>")
	}
	r.mu.Lock()
	s, closed := r.sess, r.closed
	r.mu.Unlock()
	if closed {
		return ErrClosed
	}
	tc, ok := s.(threadCommands)
	if !ok {
		return bridge.ErrNoTurn
	}
	if _, err := tc.Steer(ctx, bridge.TextInput(text)); err != nil {
		if errors.Is(err, bridge.ErrNoTurn) {
			return err
		}
		return fmt.Errorf("codex steer: %w", err)
	}
	return nil
}

// Undo removes the last turn from the thread (codex forgets it; files it
// changed stay changed).
func (r *Runtime) Undo(ctx context.Context) error {
	r.turnMu.Lock()
	defer r.turnMu.Unlock()
	tc, err := r.commands()
	if err != nil {
		return err
	}
	if _, err := tc.Undo(ctx, 1); err != nil {
		return fmt.Errorf("codex undo: %w", err)
	}
	return nil
}

// Branch forks the thread and continues the conversation in the fork; the
// original thread stays as it was. It returns the fork's thread id.
func (r *Runtime) Branch(ctx context.Context) (string, error) {
	r.turnMu.Lock()
	defer r.turnMu.Unlock()
	tc, err := r.commands()
	if err != nil {
		return "", err
	}
	id, err := tc.Fork(ctx)
	if err != nil {
		return "", fmt.Errorf("codex branch: %w", err)
	}
	r.mu.Lock()
	r.resume = id
	r.mu.Unlock()
	return id, nil
}

// Review runs codex's reviewer (review/start) on the uncommitted changes,
// or with instructions when given, as a turn of the thread.
func (r *Runtime) Review(ctx context.Context, instructions string) (agentcore.Result, error) {
	return r.threadTurn(ctx, "/review", func(tc threadCommands) bridge.TurnResult {
		return tc.Review(ctx, bridge.ReviewTarget{Instructions: strings.TrimSpace(instructions)})
	})
}

// Compress has codex compact the thread's context (thread/compact/start).
func (r *Runtime) Compress(ctx context.Context) (agentcore.Result, error) {
	return r.threadTurn(ctx, "/compress", func(tc threadCommands) bridge.TurnResult { return tc.Compact(ctx) })
}

func (r *Runtime) threadTurn(ctx context.Context, what string, run func(threadCommands) bridge.TurnResult) (agentcore.Result, error) {
	r.turnMu.Lock()
	defer r.turnMu.Unlock()
	tc, err := r.commands()
	if err != nil {
		return agentcore.Result{}, err
	}
	tr := run(tc)
	res := r.result(what, tr)
	res.Messages = res.Messages[1:] // no user message: a command started the turn
	res.Notes = append(res.Notes, tr.Notices...)
	s, _ := tc.(session)
	r.mu.Lock()
	if tr.ThreadID != "" {
		r.resume = tr.ThreadID
	}
	retire := tr.ShouldRetire && s != nil && r.sess == s
	if retire {
		r.sess, r.resume = nil, ""
	}
	r.mu.Unlock()
	if retire {
		if err := s.Close(); err != nil {
			r.cfg.Logger.Warn("closing retired codex session", "err", err)
		}
	}
	return res, nil
}
