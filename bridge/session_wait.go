package bridge

import (
	"context"
	"errors"
	"strconv"
	"time"
)

// drainWait bounds the wait for messages codex sent before it exited.
const drainWait = time.Second

// wait runs until the turn ends one way or another, then fills res.
func (s *Session) wait(ctx context.Context, c *Client, t *turnState, res *TurnResult) {
	deadline := time.NewTimer(s.cfg.TurnTimeout)
	defer deadline.Stop()
	watchdog := time.NewTimer(time.Hour)
	watchdog.Stop()
	defer watchdog.Stop()
	quiet := s.cfg.PostToolQuietTimeout

	// checkWatchdog re-arms the timer, or reports that it has fired.
	checkWatchdog := func() bool {
		s.mu.Lock()
		due, on := t.watchdogDue(quiet, s.idleGrace)
		s.mu.Unlock()
		if !on {
			return false
		}
		left := time.Until(due)
		if left <= 0 {
			return true
		}
		watchdog.Reset(left)
		return false
	}

	// ended settles a turn that ended just as something else happened: a
	// completed turn is reported as completed, however late the
	// cancellation or the timer that raced it.
	ended := func() bool {
		if isDone(t.finished) {
			s.settle(c, t, res)
			return true
		}
		return false
	}

	for {
		select {
		case <-t.finished:
			s.settle(c, t, res)
			return
		case <-c.Done():
			// Codex went away. What it sent before that is still being
			// delivered; if that includes the end of the turn, the turn
			// ended properly.
			select {
			case <-c.dispatched:
			case <-time.After(drainWait):
			}
			if isDone(t.finished) {
				s.settle(c, t, res)
				res.ShouldRetire = true
				s.retire(c)
				return
			}
			s.collect(t, res)
			*res = s.clientGone(c, *res, c.Err())
			return
		case <-ctx.Done():
			if ended() {
				return
			}
			s.interrupt(c, res.ThreadID, res.TurnID)
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				s.timedOut(c, t, res, "turn timed out (context deadline)")
				return
			}
			res.Interrupted = true
			// Wait for codex to end the turn, so that the session is
			// clean for the next one and open items are final.
			timer := time.NewTimer(s.cfg.InterruptTimeout)
			select {
			case <-t.finished:
				timer.Stop()
				s.settle(c, t, res)
				res.Interrupted = true
				return
			case <-c.Done():
			case <-timer.C:
			}
			s.log.Warn("codex did not confirm the interrupt; retiring it", "turn", res.TurnID)
			s.collect(t, res)
			res.ShouldRetire = true
			s.retire(c)
			return
		case <-deadline.C:
			if ended() {
				return
			}
			s.interrupt(c, res.ThreadID, res.TurnID)
			s.timedOut(c, t, res, "turn timed out after "+seconds(s.cfg.TurnTimeout))
			return
		case <-t.wake:
			if checkWatchdog() {
				if !ended() {
					s.silent(c, t, res, quiet)
				}
				return
			}
		case <-watchdog.C:
			if checkWatchdog() {
				if !ended() {
					s.silent(c, t, res, quiet)
				}
				return
			}
		}
	}
}

// watchdogDue says whether the watchdog is running and when it fires.
func (t *turnState) watchdogDue(quiet, idleGrace time.Duration) (time.Time, bool) {
	if t.pending > 0 || t.proj.OpenToolItems() > 0 || t.done {
		return time.Time{}, false
	}
	if !t.idleAt.IsZero() {
		due := t.idleAt.Add(idleGrace)
		if t.armed {
			due = earliest(due, t.lastActivity.Add(quiet))
		}
		return due, true
	}
	if !t.armed {
		return time.Time{}, false
	}
	return t.lastActivity.Add(quiet), true
}

func earliest(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
}

func (s *Session) timedOut(c *Client, t *turnState, res *TurnResult, msg string) {
	s.collect(t, res)
	res.Interrupted = true
	res.Err = &TurnError{Kind: TurnErrTimeout, Message: withStderr(c, msg, errStderrLines)}
	// A turn that never finished is a strong sign codex is wedged in a
	// way the next turn should not inherit.
	res.ShouldRetire = true
	s.retire(c)
}

func (s *Session) silent(c *Client, t *turnState, res *TurnResult, quiet time.Duration) {
	s.interrupt(c, res.ThreadID, res.TurnID)
	s.mu.Lock()
	answered, idle := t.answered, !t.idleAt.IsZero()
	s.mu.Unlock()
	s.collect(t, res)
	if answered || idle {
		// Codex finished the turn's work but left out turn/completed.
		// The answer is all there, and codex is otherwise fine: end
		// the turn here, say so, and keep codex and the thread.
		why := "codex went quiet for " + seconds(quiet.Round(time.Millisecond)) + " after answering"
		if idle {
			why = "codex reported the thread idle " + seconds(s.idleGrace.Round(time.Millisecond)) + " ago"
		}
		msg := "codex never reported the end of the turn (no turn/completed; " + why + "); Hermes ended the turn itself."
		if res.FinalText != "" {
			res.Notices = append(res.Notices, msg)
			return
		}
		res.Interrupted = true
		res.Err = &TurnError{Kind: TurnErrSilent, Message: msg + " The turn has no answer."}
		return
	}
	res.Interrupted = true
	res.Err = &TurnError{
		Kind:    TurnErrSilent,
		Message: "codex went silent for " + seconds(quiet.Round(time.Millisecond)) + " after a tool result; retiring app-server session.",
	}
	res.ShouldRetire = true
	s.retire(c)
}

// waitTurnID waits up to d for the turn id to become known.
func (s *Session) waitTurnID(t *turnState, d time.Duration) string {
	deadline := time.Now().Add(d)
	for {
		s.mu.Lock()
		id, done := t.id, t.done
		s.mu.Unlock()
		if id != "" || done || time.Now().After(deadline) {
			return id
		}
		select {
		case <-t.wake:
		case <-t.finished:
		case <-time.After(time.Until(deadline)):
		}
	}
}

// interrupt asks codex to stop the turn; "no active turn" and other errors
// only mean there is nothing left to stop.
func (s *Session) interrupt(c *Client, threadID, turnID string) {
	if turnID == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.InterruptTimeout)
	defer cancel()
	if err := c.Call(ctx, "turn/interrupt", map[string]string{"threadId": threadID, "turnId": turnID}, nil); err != nil {
		s.log.Debug("turn/interrupt", "turn", turnID, "error", err)
	}
}

func isDone(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
