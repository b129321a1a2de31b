package bridge

import (
	"encoding/json"
	"strings"
	"time"
)

// onNotification is the client's OnNotification: it feeds the running turn.
func (s *Session) onNotification(n Notification) {
	if s.cfg.OnEvent != nil {
		s.callOnEvent(n)
	}
	var p notificationParams
	if len(n.Params) > 0 {
		// A notification of a shape we do not know still counts as
		// activity below; its fields are just not used.
		_ = json.Unmarshal(n.Params, &p)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch n.Method {
	case "item/started", "item/completed":
		s.trackFileChange(n.Method, p.Item)
	case "serverRequest/resolved":
		if cancel := s.requests[compactJSON(p.RequestID)]; cancel != nil {
			cancel()
		}
	}
	t := s.turn
	if t == nil || t.done {
		return
	}
	if p.ThreadID != "" && s.threadID != "" && p.ThreadID != s.threadID {
		return
	}
	turnID := p.TurnID
	if turnID == "" && p.Turn != nil {
		turnID = p.Turn.ID
	}
	if turnID != "" {
		switch {
		case t.id == "" && n.Method == "turn/started":
			t.id = turnID
			t.signal()
		case t.id == "":
			return // a straggler from an earlier turn
		case turnID != t.id:
			return
		}
	}
	s.observe(t, n.Method, &p)
}

func (s *Session) callOnEvent(n Notification) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("codex OnEvent panicked", "method", n.Method, "panic", r)
		}
	}()
	s.cfg.OnEvent(n)
}

// observe applies one notification of the running turn. Called with s.mu
// held.
func (s *Session) observe(t *turnState, method string, p *notificationParams) {
	t.lastActivity = time.Now()
	pr := t.proj.project(method, p)
	if method == "item/completed" && !t.echoSeen && len(pr.Messages) == 1 && pr.Messages[0].Role == "user" {
		// Codex's echo of our own input.
		t.echoSeen = true
		pr.Messages = nil
	}
	t.messages = append(t.messages, pr.Messages...)
	switch {
	case pr.ToolIteration:
		t.tools++
		t.armed = true
		t.answered = false
		t.signal()
	case pr.HasFinalText && t.tools > 0 && !commentary(p.Item):
		// The model answered after its tools: the turn should end now,
		// and the watchdog stays on in case codex never says so. A
		// message the model marked as commentary is not the answer:
		// more work follows, maybe after a long silent think.
		t.answered = true
		t.armed = true
		t.signal()
	case len(pr.Messages) > 0 || pr.HasFinalText:
		// The model is producing output again after the tool.
		t.armed = false
	}
	if pr.HasFinalText {
		t.final = pr.FinalText
		for _, m := range turnAbortedMarkers {
			if strings.Contains(pr.FinalText, m) {
				t.aborted = true
				t.finish()
			}
		}
	}
	switch method {
	case "thread/status/changed":
		if threadIdle(p.Status) {
			if t.idleAt.IsZero() {
				t.idleAt = time.Now()
			}
		} else {
			t.idleAt = time.Time{}
		}
		t.signal()
	case "turn/completed":
		if p.Turn != nil {
			t.status = p.Turn.Status
			t.turnErr = p.Turn.Error
		}
		t.finish()
	case "thread/tokenUsage/updated":
		if p.TokenUsage != nil {
			u := *p.TokenUsage
			if t.usage != nil {
				u.Turn = t.usage.Turn
			}
			u.Turn.add(u.Last)
			t.usage = &u
		}
	case "error":
		if !p.WillRetry {
			t.lastErr = p.Error
		}
	}
}

// turnAbortedMarkers end a turn when they appear in agent text: some codex
// builds tear a turn down that way without sending turn/completed.
var turnAbortedMarkers = []string{"<turn_aborted>", "<turn_aborted/>"}

// trackFileChange keeps the change summaries of running fileChange items
// for approval prompts, whose params carry no paths. Called with s.mu held.
func (s *Session) trackFileChange(method string, raw json.RawMessage) {
	if len(raw) == 0 || !strings.Contains(string(raw), `"fileChange"`) {
		return
	}
	var it struct {
		Type    string           `json:"type"`
		ID      string           `json:"id"`
		Changes []wireFileChange `json:"changes"`
	}
	if json.Unmarshal(raw, &it) != nil || it.Type != "fileChange" || it.ID == "" {
		return
	}
	if method == "item/started" {
		s.fileChanges[it.ID] = fileChangeSummary(it.Changes)
	} else {
		delete(s.fileChanges, it.ID)
	}
}

func compactJSON(raw json.RawMessage) string {
	return strings.TrimSpace(string(raw))
}

// threadIdle says whether a thread/status/changed status is idle.
func threadIdle(raw json.RawMessage) bool {
	var st struct {
		Type string `json:"type"`
	}
	return json.Unmarshal(raw, &st) == nil && st.Type == "idle"
}

// commentary says whether an agentMessage item is marked as commentary
// (phase "commentary") rather than the answer.
func commentary(raw json.RawMessage) bool {
	var it struct {
		Phase string `json:"phase"`
	}
	return json.Unmarshal(raw, &it) == nil && it.Phase == "commentary"
}
