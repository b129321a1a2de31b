package bridge

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/hermes-go/hermes/internal/chatmsg"
	"github.com/hermes-go/hermes/internal/pystr"
)

// The transcript shape the Projector writes codex's items in, shared with
// the agent (which keeps its history in it) through a leaf package, so the
// bridge depends on no agent.
type (
	Message      = chatmsg.Message
	ToolCall     = chatmsg.ToolCall
	FunctionCall = chatmsg.FunctionCall
)

// Projection is what one notification contributes to the transcript.
type Projection struct {
	Messages []Message
	// ToolIteration is set when a tool-shaped item (command, file change,
	// MCP call, dynamic tool call) completed.
	ToolIteration bool
	// FinalText is an agent message's text; HasFinalText tells an empty
	// message from none.
	FinalText    string
	HasFinalText bool
}

// Limits on how much of a tool result goes into the transcript, in
// characters, as in the Python original.
const (
	maxToolResultChars = 4000
	maxToolErrorChars  = 1000
	maxOpaqueItemChars = 1500
)

// Projector turns codex item notifications into transcript messages with the
// rules of the Python Hermes (hermes-original.md §3.2): only item/completed
// produces messages; reasoning is held and attached to the next assistant
// message; tool-shaped items become an assistant tool call plus its tool
// result, with deterministic call ids and sorted-key arguments. Unlike the
// original it also remembers items that started but did not complete, so
// that Close can still account for them when a turn ends abruptly (an
// interrupted agentMessage never gets its item/completed).
//
// A Projector is not safe for concurrent use; use one per turn.
type Projector struct {
	reasoning []string
	open      map[string]*openItem
	order     []string // ids of open items, in start order
	openTools int
}

// openItem is an item that has started and not completed, with the streamed
// text needed to close it.
type openItem struct {
	typ      string
	item     json.RawMessage
	text     strings.Builder // agentMessage deltas, or command output
	summary  []string        // reasoning summary parts by index
	content  []string        // reasoning text parts by index
	tool     bool
	finished bool
}

// NewProjector returns an empty projector.
func NewProjector() *Projector {
	return &Projector{open: make(map[string]*openItem)}
}

// notificationParams are the params fields the projector and the session
// read, decoded once per notification.
type notificationParams struct {
	ThreadID     string          `json:"threadId"`
	TurnID       string          `json:"turnId"`
	ItemID       string          `json:"itemId"`
	Delta        string          `json:"delta"`
	SummaryIndex int             `json:"summaryIndex"`
	ContentIndex int             `json:"contentIndex"`
	Item         json.RawMessage `json:"item"`
	Turn         *wireTurn       `json:"turn"`
	// Session-level fields: token usage, error notifications, resolved
	// server requests.
	TokenUsage *TokenUsage     `json:"tokenUsage"`
	Error      json.RawMessage `json:"error"`
	WillRetry  bool            `json:"willRetry"`
	RequestID  json.RawMessage `json:"requestId"`
	// Status is thread/status/changed's status; raw because other
	// notifications may carry a status of another shape.
	Status json.RawMessage `json:"status"`
}

type wireTurn struct {
	ID     string          `json:"id"`
	Status string          `json:"status"`
	Error  json.RawMessage `json:"error"`
}

// Project handles one notification.
func (p *Projector) Project(n Notification) Projection {
	var params notificationParams
	if len(n.Params) > 0 {
		if err := json.Unmarshal(n.Params, &params); err != nil {
			return Projection{}
		}
	}
	return p.project(n.Method, &params)
}

func (p *Projector) project(method string, params *notificationParams) Projection {
	switch method {
	case "item/completed":
		return p.completed(params.Item)
	case "item/started":
		p.started(params.Item)
	case "item/agentMessage/delta", "item/commandExecution/outputDelta":
		if it := p.open[params.ItemID]; it != nil {
			it.text.WriteString(params.Delta)
		}
	case "item/reasoning/summaryTextDelta":
		if it := p.open[params.ItemID]; it != nil {
			it.summary = appendAt(it.summary, params.SummaryIndex, params.Delta)
		}
	case "item/reasoning/textDelta":
		if it := p.open[params.ItemID]; it != nil {
			it.content = appendAt(it.content, params.ContentIndex, params.Delta)
		}
	}
	return Projection{}
}

// appendAt appends s to parts[i], growing parts as needed. Indexes come from
// codex; a negative or absurd one is clamped rather than trusted.
func appendAt(parts []string, i int, s string) []string {
	if i < 0 || i > len(parts)+64 {
		i = len(parts)
	}
	for len(parts) <= i {
		parts = append(parts, "")
	}
	parts[i] += s
	return parts
}

// itemHead is enough of an item to route it.
type itemHead struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

func isToolItem(typ string) bool {
	switch typ {
	case "commandExecution", "fileChange", "mcpToolCall", "dynamicToolCall":
		return true
	}
	return false
}

func (p *Projector) started(raw json.RawMessage) {
	var h itemHead
	if len(raw) == 0 || json.Unmarshal(raw, &h) != nil || h.ID == "" {
		return
	}
	if _, dup := p.open[h.ID]; dup {
		return
	}
	it := &openItem{typ: h.Type, item: raw, tool: isToolItem(h.Type)}
	p.open[h.ID] = it
	p.order = append(p.order, h.ID)
	if it.tool {
		p.openTools++
	}
}

// OpenToolItems is how many tool-shaped items have started and not yet
// completed: codex is running a tool, not stalled.
func (p *Projector) OpenToolItems() int { return p.openTools }

func (p *Projector) forget(id string) {
	it := p.open[id]
	if it == nil {
		return
	}
	delete(p.open, id)
	it.finished = true
	if it.tool {
		p.openTools--
	}
	// order is compacted lazily in Close; turns have few items.
}

func (p *Projector) completed(raw json.RawMessage) Projection {
	var w wireItem
	if len(raw) == 0 || json.Unmarshal(raw, &w) != nil {
		return Projection{}
	}
	p.forget(w.ID)
	return p.projectItem(&w, raw)
}

// Close ends the turn: every item that started and never completed is
// projected as it stands (an agent message with the text streamed so far, a
// tool call with the output so far and status "interrupted"), in start
// order, so that every tool call in the transcript has its result. Closed
// items do not count as tool iterations: they did not complete.
func (p *Projector) Close() Projection {
	var out Projection
	for _, id := range p.order {
		it := p.open[id]
		if it == nil || it.finished {
			continue
		}
		var w wireItem
		if json.Unmarshal(it.item, &w) != nil {
			continue
		}
		switch w.Type {
		case "agentMessage":
			if s := it.text.String(); s != "" || w.Text == nil {
				w.Text = &s
			}
		case "commandExecution":
			if s := it.text.String(); s != "" {
				w.AggregatedOutput = &s
			}
		case "reasoning":
			w.Summary = append(w.Summary, nonEmpty(it.summary)...)
			w.Content = mustJSON(append(stringList(w.Content), nonEmpty(it.content)...))
		}
		if w.Status == nil || *w.Status == "inProgress" {
			s := "interrupted"
			w.Status = &s
		}
		raw, err := json.Marshal(mergeItem(it.item, &w))
		if err != nil {
			continue
		}
		pr := p.projectItem(&w, raw)
		out.Messages = append(out.Messages, pr.Messages...)
		if pr.HasFinalText {
			out.FinalText, out.HasFinalText = pr.FinalText, true
		}
	}
	clear(p.open)
	p.order = p.order[:0]
	p.openTools = 0
	return out
}

func nonEmpty(parts []string) []string {
	var out []string
	for _, s := range parts {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// mergeItem overlays the fields Close changed onto the started item, for
// the opaque-item note, which quotes the whole item.
func mergeItem(raw json.RawMessage, w *wireItem) map[string]any {
	m := map[string]any{}
	if v, err := decodeAny(raw); err == nil {
		if mm, ok := v.(map[string]any); ok {
			m = mm
		}
	}
	if w.Status != nil {
		m["status"] = *w.Status
	}
	if w.Text != nil {
		m["text"] = *w.Text
	}
	if w.AggregatedOutput != nil {
		m["aggregatedOutput"] = *w.AggregatedOutput
	}
	return m
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

// wireItem holds the ThreadItem fields the projection rules read. Fields
// are pointers where the rules tell null from empty.
type wireItem struct {
	Type string `json:"type"`
	ID   string `json:"id"`

	Text    *string         `json:"text"`    // agentMessage
	Summary []string        `json:"summary"` // reasoning
	Content json.RawMessage `json:"content"` // reasoning: []string; userMessage: []UserInput

	Command          *string          `json:"command"` // commandExecution
	Cwd              *string          `json:"cwd"`
	AggregatedOutput *string          `json:"aggregatedOutput"`
	ExitCode         *json.Number     `json:"exitCode"`
	Status           *string          `json:"status"`
	Changes          []wireFileChange `json:"changes"` // fileChange

	Server       *string         `json:"server"` // mcpToolCall
	Tool         *string         `json:"tool"`   // mcpToolCall, dynamicToolCall
	Arguments    json.RawMessage `json:"arguments"`
	Result       json.RawMessage `json:"result"`
	Error        json.RawMessage `json:"error"`
	ContentItems json.RawMessage `json:"contentItems"` // dynamicToolCall
	Success      *bool           `json:"success"`
}

type wireFileChange struct {
	Path string `json:"path"`
	Kind *struct {
		Type string `json:"type"`
	} `json:"kind"`
}

func (p *Projector) projectItem(w *wireItem, raw json.RawMessage) Projection {
	switch w.Type {
	case "agentMessage":
		text := deref(w.Text)
		return Projection{
			Messages:  []Message{p.assistant(Message{Role: "assistant", Content: text})},
			FinalText: text, HasFinalText: true,
		}
	case "reasoning":
		p.reasoning = append(p.reasoning, w.Summary...)
		p.reasoning = append(p.reasoning, stringList(w.Content)...)
		return Projection{}
	case "commandExecution":
		args := map[string]any{"command": deref(w.Command), "cwd": deref(w.Cwd)}
		out := deref(w.AggregatedOutput)
		if w.ExitCode != nil && w.ExitCode.String() != "0" {
			out = "[exit " + w.ExitCode.String() + "]\n" + out
		}
		return p.toolPair("exec", w.ID, "exec_command", pyDumps(args), out)
	case "fileChange":
		changes := make([]any, 0, len(w.Changes))
		for _, c := range w.Changes {
			kind := "update"
			if c.Kind != nil && c.Kind.Type != "" {
				kind = c.Kind.Type
			}
			changes = append(changes, map[string]any{"kind": kind, "path": c.Path})
		}
		status := deref(w.Status)
		if status == "" {
			status = "unknown"
		}
		content := "apply_patch status=" + status + ", " + strconv.Itoa(len(w.Changes)) + " change(s)"
		return p.toolPair("apply_patch", w.ID, "apply_patch", pyDumps(map[string]any{"changes": changes}), content)
	case "mcpToolCall":
		server, tool := orDefault(deref(w.Server), "mcp"), orDefault(deref(w.Tool), "unknown")
		var content string
		switch {
		case pystr.TruthyJSON(w.Error):
			content = "[error] " + truncateRunes(pyDumpsRaw(w.Error), maxToolErrorChars)
		case !jsonNull(w.Result):
			content = truncateRunes(pyDumpsRaw(w.Result), maxToolResultChars)
		}
		return p.toolPair("mcp_"+server+"_"+tool, w.ID, "mcp."+server+"."+tool, argumentsJSON(w.Arguments), content)
	case "dynamicToolCall":
		tool := deref(w.Tool)
		var content string
		if items, err := decodeAny(w.ContentItems); err == nil {
			if list, ok := items.([]any); ok && len(list) > 0 {
				content = truncateRunes(pyDumps(list), maxToolResultChars)
			}
		}
		if content == "" {
			content = "success=" + pyBool(w.Success)
		}
		return p.toolPair("dyn_"+tool, w.ID, tool, argumentsJSON(w.Arguments), content)
	case "userMessage":
		return Projection{Messages: []Message{{Role: "user", Content: userText(w.Content)}}}
	default:
		note := "[codex " + w.Type + "] " + truncateRunes(pyDumpsRaw(raw), maxOpaqueItemChars)
		return Projection{Messages: []Message{p.assistant(Message{Role: "assistant", Content: note})}}
	}
}

// assistant attaches pending reasoning to an assistant message.
func (p *Projector) assistant(m Message) Message {
	if len(p.reasoning) > 0 {
		m.Reasoning = strings.Join(p.reasoning, "\n")
		p.reasoning = p.reasoning[:0]
	}
	return m
}

func (p *Projector) toolPair(prefix, itemID, name, args, content string) Projection {
	id := callID(prefix, itemID)
	call := p.assistant(Message{
		Role:      "assistant",
		ToolCalls: []ToolCall{{ID: id, Type: "function", Function: FunctionCall{Name: name, Arguments: args}}},
	})
	return Projection{
		Messages:      []Message{call, {Role: "tool", ToolCallID: id, Content: content}},
		ToolIteration: true,
	}
}

// callID is codex_<prefix>_<item id>; an item without an id gets a stable
// hash of the prefix instead, so a transcript replays identically.
func callID(prefix, itemID string) string {
	if itemID == "" {
		sum := sha256.Sum256([]byte(prefix))
		itemID = hex.EncodeToString(sum[:])[:16]
	}
	return "codex_" + prefix + "_" + itemID
}

// argumentsJSON is the tool-call arguments text: the item's arguments when
// they are an object, else the value wrapped as {"arguments": value}.
func argumentsJSON(raw json.RawMessage) string {
	var v any
	if len(raw) > 0 {
		var err error
		if v, err = decodeAny(raw); err != nil {
			v = string(raw)
		}
	}
	if m, ok := v.(map[string]any); ok {
		return pyDumps(m)
	}
	return pyDumps(map[string]any{"arguments": v})
}

// userText joins the text fragments of a userMessage's content; images and
// other inputs are left out.
func userText(raw json.RawMessage) string {
	var parts []map[string]json.RawMessage
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var texts []string
	for _, part := range parts {
		t, ok := part["text"]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal(t, &s) == nil {
			texts = append(texts, s)
		}
	}
	return strings.Join(texts, "\n")
}

func stringList(raw json.RawMessage) []string {
	var out []string
	if len(raw) > 0 {
		var list []any
		if json.Unmarshal(raw, &list) == nil {
			for _, e := range list {
				if s, ok := e.(string); ok {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// jsonNull reports whether raw is absent or null.
func jsonNull(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s == "" || s == "null"
}

// pyBool renders a JSON boolean the way Python's str() does, for the
// "success=<success>" text of the original.
func pyBool(b *bool) string {
	switch {
	case b == nil:
		return "None"
	case *b:
		return "True"
	default:
		return "False"
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
