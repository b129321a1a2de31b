package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/internal/redact"
)

// Start starts codex and the thread now rather than on the first RunTurn,
// and returns the thread id. It does nothing if they are running.
func (s *Session) Start(ctx context.Context) (string, error) {
	if err := s.acquire(ctx); err != nil {
		return "", err
	}
	defer s.release()
	if c, err := s.ensureStarted(ctx); err != nil {
		if c != nil {
			s.retire(c)
		}
		return "", fmt.Errorf("codex app-server startup failed: %w", err)
	}
	return s.ThreadID(), nil
}

// ensureStarted returns the running client, starting codex and the thread
// if needed.
func (s *Session) ensureStarted(ctx context.Context) (*Client, error) {
	s.mu.Lock()
	c := s.client
	s.mu.Unlock()
	if c != nil {
		select {
		case <-c.Done():
			// It died between turns; start over, resuming the thread.
			s.log.Warn("codex app-server had exited; restarting", "error", c.Err())
			s.retire(c)
		default:
			return c, nil
		}
	}

	ctx, cancel := context.WithTimeout(ctx, s.cfg.StartTimeout)
	defer cancel()
	cfg := s.cfg.Codex
	cfg.OnNotification = s.onNotification
	cfg.OnRequest = s.onRequest
	c, err := Start(ctx, cfg)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		_ = c.Close()
		return nil, ErrSessionClosed
	}
	s.client = c
	resume := s.threadID
	s.mu.Unlock()

	caps := Capabilities{ExperimentalAPI: s.cfg.ExperimentalAPI || len(s.tools) > 0}
	if _, err := c.Initialize(ctx, s.cfg.ClientInfo, caps); err != nil {
		return c, err
	}
	err = s.openThread(ctx, c, resume)
	if resume != "" && isThreadNotFound(err) {
		// Codex writes a thread down only once its first turn has
		// finished, so a thread whose first turn never did (codex died,
		// was interrupted, or the user quit) cannot be resumed. Carrying
		// on in a new thread beats failing every turn from now on.
		s.log.Warn("codex thread cannot be resumed; starting a new one", "thread", resume, "error", err)
		resumeErr := err
		s.mu.Lock()
		s.threadID = ""
		s.mu.Unlock()
		if err = s.openThread(ctx, c, ""); err == nil {
			s.notice(fmt.Sprintf("codex could not resume thread %s (%s): it has no finished turn yet, so its history is gone; continuing in a new thread %s",
				resume, redact.String(rpcMessage(resumeErr)), s.ThreadID()))
		}
	}
	if err != nil {
		if resume != "" {
			// Do not insist on a thread codex cannot resume: the next
			// attempt starts a new one.
			s.mu.Lock()
			s.threadID = ""
			s.mu.Unlock()
		}
		return c, err
	}
	return c, nil
}

// openThread starts a new thread on c, or resumes the thread resume.
func (s *Session) openThread(ctx context.Context, c *Client, resume string) error {
	params := maps.Clone(s.cfg.ThreadParams)
	if params == nil {
		params = map[string]any{}
	}
	if s.cfg.Cwd != "" {
		params["cwd"] = s.cfg.Cwd
	}
	method := "thread/start"
	if resume != "" {
		method = "thread/resume"
		params["threadId"] = resume
	} else if len(s.tools) > 0 {
		specs := make([]map[string]any, 0, len(s.cfg.DynamicTools))
		for _, t := range s.cfg.DynamicTools {
			specs = append(specs, t.spec())
		}
		params["dynamicTools"] = specs
	}
	var raw json.RawMessage
	if err := c.Call(ctx, method, params, &raw); err != nil {
		return err // the client's error names the method
	}
	id, err := threadIDFrom(raw)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	s.mu.Lock()
	s.threadID = id
	s.mu.Unlock()
	s.log.Info("codex thread ready", "method", method, "thread", id, "cwd", s.cfg.Cwd, "pid", c.PID())
	return nil
}

// isThreadNotFound says whether codex refused a call because it does not
// know the thread (no rollout on disk) or does not have it loaded.
func isThreadNotFound(err error) bool {
	var rerr *RPCError
	if !errors.As(err, &rerr) {
		return false
	}
	m := strings.ToLower(rerr.Message)
	return strings.Contains(m, "thread not found") || strings.Contains(m, "no rollout found") ||
		strings.Contains(m, "thread not loaded") || strings.Contains(m, "not loaded")
}

// callLoaded calls a method of the session's thread; if codex no longer has
// the thread loaded (it unloads threads nobody is subscribed to), it
// resumes the thread and calls once more, so that input is delivered
// instead of waiting for something else to load the thread.
func (s *Session) callLoaded(ctx context.Context, c *Client, method string, params map[string]any, out any) error {
	err := c.Call(ctx, method, params, out)
	if !isThreadNotFound(err) {
		return err
	}
	thread, _ := params["threadId"].(string)
	if thread == "" {
		return err
	}
	s.log.Info("codex had unloaded the thread; resuming it", "thread", thread, "method", method, "error", err)
	if rerr := s.openThread(ctx, c, thread); rerr != nil {
		return fmt.Errorf("%w (and resuming the thread failed: %w)", err, rerr)
	}
	return c.Call(ctx, method, params, out)
}

// notice keeps a message for the user, handed over with the next result.
func (s *Session) notice(msg string) {
	s.mu.Lock()
	s.notices = append(s.notices, msg)
	s.mu.Unlock()
}

// takeNotices returns the kept notices and forgets them.
func (s *Session) takeNotices() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.notices
	s.notices = nil
	return n
}

// threadIDFrom finds the thread id in a thread/start or thread/resume
// result. Codex versions have put it in different places; take the first
// of thread.id, thread.sessionId, sessionId, threadId.
func threadIDFrom(raw json.RawMessage) (string, error) {
	var r struct {
		Thread struct {
			ID        string `json:"id"`
			SessionID string `json:"sessionId"`
		} `json:"thread"`
		SessionID string `json:"sessionId"`
		ThreadID  string `json:"threadId"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return "", fmt.Errorf("decode result: %w", err)
	}
	for _, id := range []string{r.Thread.ID, r.Thread.SessionID, r.SessionID, r.ThreadID} {
		if id != "" {
			return id, nil
		}
	}
	var keys []string
	var top map[string]json.RawMessage
	_ = json.Unmarshal(raw, &top)
	for k := range top {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return "", fmt.Errorf("codex returned no thread id (payload keys: %v)", keys)
}

// retire shuts c down if it is still the session's client.
func (s *Session) retire(c *Client) {
	s.mu.Lock()
	if s.client == c {
		s.client = nil
	}
	s.mu.Unlock()
	if err := c.Close(); err != nil {
		s.log.Debug("retired codex app-server", "error", err)
	}
}

// rpcMessage is codex's own words for a failed call, else the error text.
func rpcMessage(err error) string {
	var rerr *RPCError
	if errors.As(err, &rerr) {
		return rerr.Message
	}
	return errorText(err)
}
