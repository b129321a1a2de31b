package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hermes-go/hermes/internal/redact"
)

// Decision is a user's answer to an approval prompt, in Hermes's terms.
type Decision string

// The decisions Hermes's approval prompt offers. Codex has no "always" for
// these requests; it is treated as "for this session".
const (
	DecisionOnce    Decision = "once"
	DecisionSession Decision = "session"
	DecisionAlways  Decision = "always"
	DecisionDeny    Decision = "deny"
)

// codexDecision maps a Hermes decision to codex's wire value. Anything
// unrecognised denies: an approval must fail closed.
func codexDecision(d Decision) string {
	switch d {
	case DecisionOnce:
		return "accept"
	case DecisionSession, DecisionAlways:
		return "acceptForSession"
	}
	return "decline"
}

// ApprovalKind says what codex wants to do.
type ApprovalKind string

const (
	// ApproveCommand: run a shell command (outside the sandbox, or under a
	// policy that asks first).
	ApproveCommand ApprovalKind = "command"
	// ApproveFileChange: apply a patch.
	ApproveFileChange ApprovalKind = "fileChange"
)

// ApprovalRequest is what an Approver is asked.
type ApprovalRequest struct {
	Kind ApprovalKind
	// Command is the line to show as the thing being approved: the shell
	// command, or "apply_patch: <summary>" for a file change.
	Command string
	// Description explains the request: "Codex requests exec in <cwd> —
	// <reason>" for a command; reason, change summary and granted root for
	// a file change.
	Description string
	// Reason is codex's (the model's) justification, if any.
	Reason string
	// Cwd is where a command would run (the session's cwd when codex does
	// not say).
	Cwd string
	// Changes summarises a file change's pending edits, e.g.
	// "1 add, 1 update: /a, /b"; empty when codex sent no item for it.
	Changes string
	// GrantRoot is the directory a file change asks write access to.
	GrantRoot string
	// ThreadID, TurnID and ItemID locate the request in codex's thread.
	ThreadID, TurnID, ItemID string
	// Params are codex's request params, for anything not extracted above.
	Params json.RawMessage
}

// Approver answers codex's approval requests, typically by asking the user.
// It is called on its own goroutine per request; codex's turn waits for the
// answer. ctx ends when the turn ends or codex withdraws the request; the
// answer then no longer matters. An error denies.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) (Decision, error)
}

// ApproverFunc adapts a function to Approver.
type ApproverFunc func(ctx context.Context, req ApprovalRequest) (Decision, error)

// Approve implements Approver.
func (f ApproverFunc) Approve(ctx context.Context, req ApprovalRequest) (Decision, error) {
	return f(ctx, req)
}

// DynamicTool is a tool the session offers the model through codex's
// dynamic tools (codex-app-server.md §8): codex shows it to the model like
// its own tools and sends each call back as an item/tool/call request. No
// approval is ever asked for these. The fields mirror a Hermes tool
// declaration (toolsets/tooldef.Tool), so one can be adapted with a short
// closure.
type DynamicTool struct {
	// Name is the function name the model calls.
	Name        string
	Description string
	// InputSchema is the JSON Schema of the arguments object; nil offers an
	// empty object schema.
	InputSchema json.RawMessage
	// DeferLoading keeps the tool off the model's ordinary tool list.
	DeferLoading bool
	// Handler runs a call. The arguments are what the model sent; codex does
	// not validate them against InputSchema, so a handler that needs valid
	// arguments must check them.
	Handler ToolHandler
}

// ToolHandler runs one dynamic tool call. Failures the model should see are
// a ToolOutput with IsError; a returned error is reported to the model as a
// failed call with the (redacted) error text.
type ToolHandler func(ctx context.Context, args json.RawMessage) (ToolOutput, error)

// ToolOutput is a dynamic tool's result.
type ToolOutput struct {
	Content []ToolContent
	// IsError marks the call failed; codex still passes the content to the
	// model.
	IsError bool
}

// ToolContent is one piece of a tool's result: text, or an image by URL
// (https or data:).
type ToolContent struct {
	Text     string
	ImageURL string
}

// TextOutput is a successful result with one text.
func TextOutput(text string) ToolOutput {
	return ToolOutput{Content: []ToolContent{{Text: text}}}
}

// ErrorOutput is a failed result with one text.
func ErrorOutput(text string) ToolOutput {
	return ToolOutput{Content: []ToolContent{{Text: text}}, IsError: true}
}

// toolSpec is the thread/start dynamicTools entry.
func (t DynamicTool) spec() map[string]any {
	schema := t.InputSchema
	if len(schema) == 0 {
		schema = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	spec := map[string]any{"type": "function", "name": t.Name, "description": t.Description, "inputSchema": schema}
	if t.DeferLoading {
		spec["deferLoading"] = true
	}
	return spec
}

// toolCallReply is codex's DynamicToolCallResponse.
type toolCallReply struct {
	ContentItems []toolContentItem `json:"contentItems"`
	Success      bool              `json:"success"`
}

type toolContentItem struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	ImageURL string `json:"imageUrl,omitempty"`
}

func (o ToolOutput) reply() toolCallReply {
	r := toolCallReply{Success: !o.IsError, ContentItems: []toolContentItem{}}
	for _, c := range o.Content {
		if c.ImageURL != "" {
			r.ContentItems = append(r.ContentItems, toolContentItem{Type: "inputImage", ImageURL: c.ImageURL})
		} else {
			r.ContentItems = append(r.ContentItems, toolContentItem{Type: "inputText", Text: c.Text})
		}
	}
	return r
}

// The server-request handlers. Each is registered in Session.requestMux and
// runs on its own goroutine (see Config.OnRequest).

type commandApprovalParams struct {
	ThreadID string  `json:"threadId"`
	TurnID   string  `json:"turnId"`
	ItemID   string  `json:"itemId"`
	Command  *string `json:"command"`
	Cwd      *string `json:"cwd"`
	Reason   *string `json:"reason"`
}

func (s *Session) handleCommandApproval(ctx context.Context, req *ServerRequest) (any, error) {
	var p commandApprovalParams
	if err := json.Unmarshal(req.Params, &p); err != nil {
		return nil, &RPCError{Code: CodeInvalidParams, Message: "invalid params: " + err.Error()}
	}
	cwd := deref(p.Cwd)
	if cwd == "" {
		// Codex's cwd is optional; an empty location in a prompt reads as
		// a bug, and the session's cwd is where codex runs anyway.
		cwd = orDefault(s.cfg.Cwd, "<unknown>")
	}
	desc := "Codex requests exec in " + cwd
	if r := deref(p.Reason); r != "" {
		desc += " — " + r
	}
	ar := ApprovalRequest{
		Kind: ApproveCommand, Command: deref(p.Command), Description: desc, Reason: deref(p.Reason), Cwd: cwd,
		ThreadID: p.ThreadID, TurnID: p.TurnID, ItemID: p.ItemID, Params: req.Params,
	}
	return map[string]string{"decision": s.decide(ctx, ar)}, nil
}

type fileApprovalParams struct {
	ThreadID  string  `json:"threadId"`
	TurnID    string  `json:"turnId"`
	ItemID    string  `json:"itemId"`
	Reason    *string `json:"reason"`
	GrantRoot *string `json:"grantRoot"`
}

func (s *Session) handleFileChangeApproval(ctx context.Context, req *ServerRequest) (any, error) {
	var p fileApprovalParams
	if err := json.Unmarshal(req.Params, &p); err != nil {
		return nil, &RPCError{Code: CodeInvalidParams, Message: "invalid params: " + err.Error()}
	}
	// Codex's request carries no paths; the fileChange item that started
	// just before it does (the Client delivers that notification before
	// starting this handler).
	s.mu.Lock()
	summary := s.fileChanges[p.ItemID]
	s.mu.Unlock()
	reason, root := deref(p.Reason), deref(p.GrantRoot)
	var parts []string
	if reason != "" {
		parts = append(parts, reason)
	}
	if summary != "" {
		parts = append(parts, summary)
	}
	if root != "" {
		parts = append(parts, "grants write to "+root)
	}
	desc := strings.Join(parts, "; ")
	if desc == "" {
		desc = "Codex requests to apply a patch"
	}
	label := "apply_patch"
	switch {
	case summary != "":
		label += ": " + summary
	case reason != "":
		label += ": " + reason
	}
	ar := ApprovalRequest{
		Kind: ApproveFileChange, Command: label, Description: desc, Reason: reason, Cwd: s.cfg.Cwd,
		Changes: summary, GrantRoot: root, ThreadID: p.ThreadID, TurnID: p.TurnID, ItemID: p.ItemID, Params: req.Params,
	}
	return map[string]string{"decision": s.decide(ctx, ar)}, nil
}

// decide asks the Approver and maps its answer; no Approver, an error or a
// panic all decline.
func (s *Session) decide(ctx context.Context, ar ApprovalRequest) (decision string) {
	if s.cfg.Approver == nil {
		s.log.Info("codex approval declined: no approver configured", "kind", ar.Kind, "command", redact.String(ar.Command))
		return "decline"
	}
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("approver panicked; declining", "kind", ar.Kind, "panic", p)
			decision = "decline"
		}
	}()
	d, err := s.cfg.Approver.Approve(ctx, ar)
	if err != nil {
		s.log.Warn("approver failed; declining", "kind", ar.Kind, "error", err)
		return "decline"
	}
	return codexDecision(d)
}

// handlePermissionsApproval grants nothing. Codex wants the granted subset
// of the requested permissions back; an empty one is a refusal it accepts
// without complaint (the Python original's {"decision":"decline"} had the
// same effect but made codex log a deserialisation error). Widening the
// sandbox mid-turn is left to the user's codex configuration.
func (s *Session) handlePermissionsApproval(_ context.Context, req *ServerRequest) (any, error) {
	s.log.Info("codex permission request declined (nothing granted)", "params", redact.String(string(req.Params)))
	return map[string]any{"permissions": map[string]any{}, "scope": "turn"}, nil
}

type elicitationParams struct {
	ServerName string `json:"serverName"`
	Meta       struct {
		ApprovalKind string `json:"codex_approval_kind"`
		ToolName     string `json:"tool_name"`
	} `json:"_meta"`
}

// handleElicitation accepts what Hermes's own MCP server asks (including
// codex's tool-call approvals for it: the user enabled those tools by
// enabling the runtime) and declines every other server's, which the user
// must approve through codex's own UI.
func (s *Session) handleElicitation(_ context.Context, req *ServerRequest) (any, error) {
	var p elicitationParams
	_ = json.Unmarshal(req.Params, &p) // a malformed request is declined below
	action := "decline"
	if p.ServerName != "" && slices.Contains(s.trustedServers, p.ServerName) {
		action = "accept"
	}
	s.log.Debug("codex MCP elicitation", "server", p.ServerName, "kind", p.Meta.ApprovalKind, "tool", p.Meta.ToolName, "action", action)
	return map[string]any{"action": action, "content": nil, "_meta": nil}, nil
}

type toolCallParams struct {
	ThreadID  string          `json:"threadId"`
	TurnID    string          `json:"turnId"`
	CallID    string          `json:"callId"`
	Namespace *string         `json:"namespace"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
}

// handleToolCall runs a dynamic tool. Every outcome is a reply codex can
// pass to the model, so the model learns that a call failed rather than the
// turn failing.
func (s *Session) handleToolCall(ctx context.Context, req *ServerRequest) (result any, err error) {
	var p toolCallParams
	if err := json.Unmarshal(req.Params, &p); err != nil {
		return nil, &RPCError{Code: CodeInvalidParams, Message: "invalid params: " + err.Error()}
	}
	tool, ok := s.tools[p.Tool]
	if !ok || deref(p.Namespace) != "" {
		return ErrorOutput(fmt.Sprintf("unknown tool %q", qualifiedName(p.Namespace, p.Tool))).reply(), nil
	}
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("dynamic tool panicked", "tool", p.Tool, "panic", r)
			result, err = ErrorOutput("tool "+strconv.Quote(p.Tool)+" failed: internal error").reply(), nil
		}
	}()
	args := p.Arguments
	if jsonNull(args) {
		args = json.RawMessage(`{}`)
	}
	out, herr := tool.Handler(ctx, args)
	if herr != nil {
		s.log.Warn("dynamic tool failed", "tool", p.Tool, "error", herr)
		return ErrorOutput("tool " + strconv.Quote(p.Tool) + " failed: " + redact.String(herr.Error())).reply(), nil
	}
	return out.reply(), nil
}

func qualifiedName(ns *string, tool string) string {
	if deref(ns) == "" {
		return tool
	}
	return *ns + "." + tool
}

// fileChangeSummary describes a fileChange item's changes for an approval
// prompt: counts by kind, then up to three paths, e.g.
// "1 add, 1 update: /a, /b".
func fileChangeSummary(changes []wireFileChange) string {
	if len(changes) == 0 {
		return "1 change pending"
	}
	counts := map[string]int{}
	var paths []string
	for _, c := range changes {
		kind := "update"
		if c.Kind != nil && c.Kind.Type != "" {
			kind = c.Kind.Type
		}
		counts[kind]++
		if c.Path != "" {
			paths = append(paths, c.Path)
		}
	}
	kinds := make([]string, 0, len(counts))
	for k := range counts {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	var b strings.Builder
	for i, k := range kinds {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(counts[k]) + " " + k)
	}
	if len(paths) == 0 {
		return b.String()
	}
	b.WriteString(": ")
	b.WriteString(strings.Join(paths[:min(3, len(paths))], ", "))
	if len(paths) > 3 {
		b.WriteString(", +" + strconv.Itoa(len(paths)-3) + " more")
	}
	return b.String()
}
