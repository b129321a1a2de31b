package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
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
		if resume != "" {
			// Do not insist on a thread codex cannot resume: the next
			// attempt starts a new one.
			s.mu.Lock()
			s.threadID = ""
			s.mu.Unlock()
		}
		return c, err
	}
	id, err := threadIDFrom(raw)
	if err != nil {
		return c, fmt.Errorf("%s: %w", method, err)
	}
	s.mu.Lock()
	s.threadID = id
	s.mu.Unlock()
	s.log.Info("codex thread ready", "method", method, "thread", id, "cwd", s.cfg.Cwd, "pid", c.PID())
	return c, nil
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
