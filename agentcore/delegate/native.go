package delegate

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/hermes-go/hermes/agentcore"
	"github.com/hermes-go/hermes/agentcore/mcpclients"
	"github.com/hermes-go/hermes/agentcore/native"
	"github.com/hermes-go/hermes/mcpserver/argschema"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// SubagentPrompt is the system prompt NativeRunner gives a sub-agent when
// the options carry none.
const SubagentPrompt = "You are a sub-agent working on one task delegated by another agent. You do not see its " +
	"conversation and cannot ask the user anything: work from the task and context you are given, using your " +
	"tools. When you are done, answer with a concise summary of what you did and found (files changed, " +
	"commands run, results, anything left undone), because that answer is all the delegating agent gets back."

// NativeRunner returns a RunFunc that runs each sub-agent on the native
// runtime with opts: a fresh conversation (no history) whose user message
// is UserMessage(goal, context). opts.Tools is the sub-agent's tool set
// (typically the session's *mcpclients.Manager); a tool named
// delegate_task is hidden from it, so sub-agents stay leaves. An empty
// opts.SystemPrompt becomes SubagentPrompt. OnText and OnToolCall are
// serialised, since several sub-agents run at once. The runtime is built
// once; a config error is returned by every call.
func NativeRunner(opts native.Options) RunFunc {
	if opts.SystemPrompt == "" {
		opts.SystemPrompt = SubagentPrompt
	}
	if opts.Tools != nil {
		opts.Tools = leafTools{inner: opts.Tools}
	}
	var mu sync.Mutex
	if f := opts.OnText; f != nil {
		opts.OnText = func(d string) { mu.Lock(); defer mu.Unlock(); f(d) }
	}
	if f := opts.OnToolCall; f != nil {
		opts.OnToolCall = func(c agentcore.ToolCall) { mu.Lock(); defer mu.Unlock(); f(c) }
	}
	rt, err := native.New(opts)
	return func(ctx context.Context, goal, context string) (agentcore.Result, error) {
		if err != nil {
			return agentcore.Result{}, err
		}
		return rt.RunTurn(ctx, nil, UserMessage(goal, context))
	}
}

// leafTools hides delegate_task from a sub-agent.
type leafTools struct{ inner native.Tools }

func (l leafTools) Tools() []mcpclients.Tool {
	return slices.DeleteFunc(slices.Clone(l.inner.Tools()), func(t mcpclients.Tool) bool { return t.Name == Name })
}

func (l leafTools) Call(ctx context.Context, name, argsJSON string) string {
	if name == Name {
		return `{"error":"delegate_task is not available to sub-agents: do the work yourself with your other tools"}`
	}
	return l.inner.Call(ctx, name, argsJSON)
}

// ParentTools returns inner plus tool (delegate_task) as one tool set for
// the parent's native runtime. Calls to tool are validated against its
// schema and handled in-process; everything else goes to inner (which may
// be nil). Build the sub-agents' Run from inner, not from the result, so
// they stay leaves.
func ParentTools(inner native.Tools, tool tooldef.Tool) (native.Tools, error) {
	schema, err := argschema.Compile(tool.Name, tool.InputSchema)
	if err != nil {
		return nil, err
	}
	var params map[string]any
	if err := json.Unmarshal(tool.InputSchema, &params); err != nil {
		return nil, fmt.Errorf("%s input schema: %w", tool.Name, err)
	}
	return &parentTools{inner: inner, tool: tool, schema: schema,
		decl: mcpclients.Tool{Name: tool.Name, Description: tool.Description, Parameters: params}}, nil
}

type parentTools struct {
	inner  native.Tools
	tool   tooldef.Tool
	schema *argschema.Schema
	decl   mcpclients.Tool
}

func (p *parentTools) Tools() []mcpclients.Tool {
	var out []mcpclients.Tool
	if p.inner != nil {
		out = slices.DeleteFunc(slices.Clone(p.inner.Tools()), func(t mcpclients.Tool) bool { return t.Name == p.decl.Name })
	}
	return append(out, p.decl)
}

func (p *parentTools) Call(ctx context.Context, name, argsJSON string) string {
	if name != p.decl.Name {
		if p.inner == nil {
			return errorJSON(fmt.Sprintf("unknown tool %q", name))
		}
		return p.inner.Call(ctx, name, argsJSON)
	}
	args := []byte(argsJSON)
	if strings.TrimSpace(argsJSON) == "" {
		args = []byte("{}")
	}
	if err := p.schema.Validate(args); err != nil {
		return errorJSON(fmt.Sprintf("invalid arguments for %s: %v. Fix the arguments to match the tool's input schema and call again.", name, err))
	}
	res, err := p.tool.Handler(ctx, args)
	if err != nil {
		return errorJSON(fmt.Sprintf("%s failed: %v", name, err))
	}
	if s, ok := res.Value.(string); ok {
		return s
	}
	b, err := tooldef.EncodeJSON(res.Value)
	if err != nil {
		return errorJSON(fmt.Sprintf("%s: encode result: %v", name, err))
	}
	return string(b)
}

func errorJSON(msg string) string {
	b, _ := tooldef.EncodeJSON(map[string]string{"error": msg})
	return string(b)
}
