package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// The thread-level commands of a Session: steering a running turn, and
// rolling back, forking, reviewing and compacting the thread between turns.

// ErrNoTurn is returned by Steer when no turn is running.
var ErrNoTurn = errors.New("no codex turn is running to steer; send the text as a new message instead")

// Steer adds input to the running turn (turn/steer): codex hands it to the
// model at its next step, without starting a new turn. It returns the id
// of the turn that took the input. It does not wait for the turn, which the
// RunTurn in progress goes on reporting.
func (s *Session) Steer(ctx context.Context, input ...UserInput) (string, error) {
	if len(input) == 0 {
		return "", errors.New("codex steer: no input")
	}
	s.mu.Lock()
	c, t, thread, closed := s.client, s.turn, s.threadID, s.closed
	var turnID string
	if t != nil && !t.done {
		turnID = t.id
	}
	s.mu.Unlock()
	switch {
	case closed:
		return "", ErrSessionClosed
	case c == nil || t == nil || turnID == "":
		return "", ErrNoTurn
	}
	var out struct {
		TurnID string `json:"turnId"`
	}
	err := c.Call(ctx, "turn/steer", map[string]any{"threadId": thread, "input": input, "expectedTurnId": turnID}, &out)
	if err != nil {
		if isNoActiveTurn(err) {
			return "", fmt.Errorf("%w (codex: %v)", ErrNoTurn, err)
		}
		return "", fmt.Errorf("turn/steer: %w", err)
	}
	if out.TurnID == "" {
		out.TurnID = turnID
	}
	return out.TurnID, nil
}

// isNoActiveTurn says whether codex refused a steer because the turn had
// already ended (or was of a kind that cannot be steered).
func isNoActiveTurn(err error) bool {
	var rerr *RPCError
	if !errors.As(err, &rerr) {
		return false
	}
	m := strings.ToLower(rerr.Message)
	return strings.Contains(m, "no active turn") || strings.Contains(m, "not steerable") ||
		strings.Contains(m, "expected turn") || strings.Contains(m, "does not match")
}

// threadCall runs one thread method between turns, on a codex that has the
// thread loaded (starting or resuming it first, as RunTurn would).
func (s *Session) threadCall(ctx context.Context, method string, params map[string]any, out any) error {
	if err := s.acquire(ctx); err != nil {
		return err
	}
	defer s.release()
	c, err := s.ensureStarted(ctx)
	if err != nil {
		if c != nil {
			s.retire(c)
		}
		return fmt.Errorf("codex app-server startup failed: %w", err)
	}
	if params == nil {
		params = map[string]any{}
	}
	params["threadId"] = s.ThreadID()
	if err := s.callLoaded(ctx, c, method, params, out); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// Undo drops the last n turns from the thread, so that the model no
// longer sees them. Codex (0.169.0 and 0.171.0) has no thread/rollback,
// whatever its README says: it lists the newest turns (thread/turns/list)
// and cuts the history before the oldest of them (thread/revert). Files
// the turns changed stay changed. It returns the id of that turn.
func (s *Session) Undo(ctx context.Context, n int) (string, error) {
	if n < 1 {
		return "", fmt.Errorf("codex undo: %d turns; undo at least 1", n)
	}
	if err := s.acquire(ctx); err != nil {
		return "", err
	}
	defer s.release()
	c, err := s.ensureStarted(ctx)
	if err != nil {
		if c != nil {
			s.retire(c)
		}
		return "", fmt.Errorf("codex app-server startup failed: %w", err)
	}
	thread := s.ThreadID()
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	params := map[string]any{"threadId": thread, "limit": n, "sortDirection": "desc"}
	if err := s.callLoaded(ctx, c, "thread/turns/list", params, &list); err != nil {
		if strings.Contains(rpcMessage(err), "not materialized") {
			// Codex's words for a thread with no user message yet.
			return "", errors.New("codex undo: the thread has no turn to undo yet")
		}
		return "", fmt.Errorf("thread/turns/list: %w", err)
	}
	if len(list.Data) < n {
		if len(list.Data) == 0 {
			return "", errors.New("codex undo: the thread has no turn to undo yet")
		}
		return "", fmt.Errorf("codex undo: the thread has only %d turns", len(list.Data))
	}
	before := list.Data[n-1].ID
	if err := s.callLoaded(ctx, c, "thread/revert", map[string]any{"threadId": thread, "beforeTurnId": before}, nil); err != nil {
		return "", fmt.Errorf("thread/revert: %w", err)
	}
	return before, nil
}

// Fork copies the thread into a new one (thread/fork) and makes the session
// continue there; the old thread stays as it was. It returns the new
// thread's id.
func (s *Session) Fork(ctx context.Context) (string, error) {
	var raw json.RawMessage
	if err := s.threadCall(ctx, "thread/fork", nil, &raw); err != nil {
		return "", err
	}
	id, err := threadIDFrom(raw)
	if err != nil {
		return "", fmt.Errorf("thread/fork: %w", err)
	}
	s.mu.Lock()
	s.threadID = id
	s.mu.Unlock()
	s.log.Info("codex thread forked", "thread", id)
	return id, nil
}

// ReviewTarget says what a review looks at; its zero value is the
// uncommitted changes in the thread's working directory.
type ReviewTarget struct {
	// BaseBranch reviews the changes against this branch.
	BaseBranch string
	// Commit reviews this commit (a sha).
	Commit string
	// Instructions is a free-form review request.
	Instructions string
}

func (r ReviewTarget) wire() (map[string]any, error) {
	set := 0
	for _, v := range []string{r.BaseBranch, r.Commit, r.Instructions} {
		if v != "" {
			set++
		}
	}
	switch {
	case set > 1:
		return nil, errors.New("codex review: give one of a base branch, a commit or instructions")
	case r.BaseBranch != "":
		return map[string]any{"type": "baseBranch", "branch": r.BaseBranch}, nil
	case r.Commit != "":
		return map[string]any{"type": "commit", "sha": r.Commit}, nil
	case r.Instructions != "":
		return map[string]any{"type": "custom", "instructions": r.Instructions}, nil
	}
	return map[string]any{"type": "uncommittedChanges"}, nil
}

// Review runs codex's reviewer on the thread (review/start, delivered
// inline: the review is a turn of this thread) and waits for it like
// RunTurn.
func (s *Session) Review(ctx context.Context, target ReviewTarget) TurnResult {
	tgt, err := target.wire()
	if err != nil {
		return TurnResult{Err: &TurnError{Kind: TurnErrUsage, Message: err.Error(), Err: err}}
	}
	res := s.runThreadTurn(ctx, "review/start", map[string]any{"target": tgt, "delivery": "inline"})
	if res.FinalText == "" {
		// Codex 0.171.0 ends a review with an empty agent message after
		// the verdict; the verdict is the answer.
		for _, m := range slices.Backward(res.Messages) {
			if m.Role == "assistant" && strings.TrimSpace(m.Content) != "" && !strings.HasPrefix(m.Content, "[codex ") {
				res.FinalText = m.Content
				break
			}
		}
	}
	return res
}

// Compact asks codex to summarise the thread so far into a shorter context
// (thread/compact/start) and waits for the compaction turn like RunTurn.
func (s *Session) Compact(ctx context.Context) TurnResult {
	return s.runThreadTurn(ctx, "thread/compact/start", map[string]any{})
}

// runThreadTurn is RunTurn for the methods that start a turn of their own.
func (s *Session) runThreadTurn(ctx context.Context, method string, params map[string]any) (res TurnResult) {
	if err := s.acquire(ctx); err != nil {
		if errors.Is(err, ErrSessionClosed) {
			res.Err = &TurnError{Kind: TurnErrUsage, Message: err.Error(), Err: err}
		} else {
			res.Interrupted = true
		}
		return res
	}
	defer s.release()
	defer func() { res.Notices = append(s.takeNotices(), res.Notices...) }()
	c, err := s.ensureStarted(ctx)
	if err != nil {
		return s.startupFailed(ctx, c, err)
	}
	return s.runTurn(ctx, c, method, params)
}
