package codexrt

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"

	"github.com/hermes-go/hermes/bridge"
	"github.com/hermes-go/hermes/mcpserver/argschema"
	"github.com/hermes-go/hermes/toolsets/memory"
	"github.com/hermes-go/hermes/toolsets/sessions"
	"github.com/hermes-go/hermes/toolsets/todo"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// SessionIDEnv is the variable the todo and session_search tools read the
// caller's Hermes session id from. In-process the runtime answers it from
// Config.SessionID instead of the process environment, so two
// conversations in one process keep separate todo lists.
const SessionIDEnv = "HERMES_SESSION_ID"

// AgentToolsets are the agent-loop toolsets the codex runtime offers as
// dynamic tools: codex has no equivalent of Hermes' memory, todo list or
// session search, and without them a codex turn would lose what the native
// runtime gives the model.
func AgentToolsets(home, sessionID string) []tooldef.Toolset {
	getenv := func(k string) string {
		if k == SessionIDEnv && sessionID != "" {
			return sessionID
		}
		return os.Getenv(k)
	}
	return []tooldef.Toolset{
		memory.Toolset(memory.Options{Home: home}),
		todo.Toolset(todo.Options{Home: home, Getenv: getenv}),
		sessions.Toolset(sessions.Options{Home: home, Getenv: getenv}),
	}
}

// DynamicTools adapts Hermes tool declarations to codex dynamic tools. A
// tool whose Check fails is left out (its reason is logged), as the MCP
// server does: offering a tool that cannot work only wastes a model call.
func DynamicTools(toolsets []tooldef.Toolset, log *slog.Logger) ([]bridge.DynamicTool, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var out []bridge.DynamicTool
	for _, ts := range toolsets {
		for _, t := range ts.Tools {
			if t.Check != nil {
				if err := t.Check(); err != nil {
					log.Info("dynamic tool not offered to codex", "tool", t.Name, "reason", err)
					continue
				}
			}
			schema, err := argschema.Compile(t.Name, t.InputSchema)
			if err != nil {
				return nil, fmt.Errorf("dynamic tool %s: input schema: %w", t.Name, err)
			}
			out = append(out, bridge.DynamicTool{
				Name:        t.Name,
				Description: t.Description,
				InputSchema: t.InputSchema,
				Handler:     toolHandler(t, schema, log),
			})
		}
	}
	return out, nil
}

// toolHandler runs one declaration the way hermes-tools-mcp does: codex
// does not validate dynamic tool arguments, so they are checked against
// the schema first, and the result is rendered as the same text the MCP
// server would send, so the model sees one tool surface on both paths.
func toolHandler(t tooldef.Tool, schema *argschema.Schema, log *slog.Logger) bridge.ToolHandler {
	return func(ctx context.Context, args json.RawMessage) (bridge.ToolOutput, error) {
		if len(args) == 0 || string(args) == "null" {
			args = json.RawMessage("{}")
		}
		if err := schema.Validate(args); err != nil {
			return bridge.ErrorOutput(fmt.Sprintf("invalid arguments for %s: %v. Fix the arguments to match the tool's input schema and call again.", t.Name, err)), nil
		}
		res, err := runTool(ctx, t, args, log)
		if err != nil {
			if ctx.Err() != nil {
				return bridge.ErrorOutput(fmt.Sprintf("%s was cancelled: %v", t.Name, ctx.Err())), nil
			}
			log.Error("dynamic tool failed", "tool", t.Name, "err", err)
			return bridge.ErrorOutput(fmt.Sprintf("%s failed: %v", t.Name, err)), nil
		}
		return renderResult(t.Name, res)
	}
}

// runTool contains a handler's panic: a bug in one tool must cost one
// call, not the user's codex turn.
func runTool(ctx context.Context, t tooldef.Tool, args json.RawMessage, log *slog.Logger) (res tooldef.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			log.Error("dynamic tool panicked", "tool", t.Name, "panic", r, "stack", string(debug.Stack()))
			err = fmt.Errorf("internal error (a bug in Hermes; the log has details): %v", r)
		}
	}()
	return t.Handler(ctx, args)
}

func renderResult(name string, res tooldef.Result) (bridge.ToolOutput, error) {
	var text string
	switch v := res.Value.(type) {
	case string:
		text = v
	case json.RawMessage:
		text = string(v)
	default:
		b, err := tooldef.EncodeJSON(v)
		if err != nil {
			return bridge.ToolOutput{}, fmt.Errorf("tool %s: encode result: %w", name, err)
		}
		text = string(b)
	}
	out := bridge.ToolOutput{Content: []bridge.ToolContent{{Text: text}}, IsError: res.IsError}
	for _, img := range res.Images {
		// Codex takes images by URL; a data: URL carries them inline.
		out.Content = append(out.Content, bridge.ToolContent{
			ImageURL: "data:" + img.MIMEType + ";base64," + base64.StdEncoding.EncodeToString(img.Data),
		})
	}
	return out, nil
}
