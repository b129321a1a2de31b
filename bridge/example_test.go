package bridge_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/hermes-go/hermes/bridge"
)

// A session with codex: locate and check the binary, start it with the
// user's environment plus a managed CODEX_HOME, answer server requests,
// follow notifications, and call a method. (Compiled, not run: it needs a
// codex CLI.)
func Example() {
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))

	bin, err := bridge.FindBinary("")
	if err != nil {
		log.Error("codex unavailable", "error", err)
		return
	}
	if _, err := bridge.CheckVersion(ctx, bin); err != nil {
		log.Error("codex unusable", "error", err)
		return
	}
	home, _ := os.UserHomeDir()
	c, err := bridge.Start(ctx, bridge.Config{
		Binary: bin,
		Env:    append(os.Environ(), "CODEX_HOME="+filepath.Join(home, ".hermes", "codex")),
		Logger: log,
		OnNotification: func(n bridge.Notification) {
			log.Info("codex event", "method", n.Method)
		},
		OnRequest: bridge.RequestMux{
			"item/tool/call": func(ctx context.Context, req *bridge.ServerRequest) (any, error) {
				return map[string]any{
					"contentItems": []map[string]string{{"type": "inputText", "text": "done"}},
					"success":      true,
				}, nil
			},
		}.Handle,
	})
	if err != nil {
		log.Error("start codex", "error", err)
		return
	}
	defer c.Close()

	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := c.Initialize(ctx, bridge.ClientInfo{Name: "hermes", Title: "Hermes Agent", Version: "0.1"},
		bridge.Capabilities{ExperimentalAPI: true}); err != nil {
		log.Error("initialize", "error", err)
		return
	}
	var loaded json.RawMessage
	if err := c.Call(ctx, "thread/loaded/list", nil, &loaded); err != nil {
		log.Error("thread/loaded/list", "error", err)
	}
}

// A Hermes session on codex: one thread, turns run one at a time, approvals
// asked of the user, one tool of the agent offered to the model. (Compiled,
// not run: it needs a codex CLI and a login.)
func ExampleSession() {
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	bin, err := bridge.FindBinary("")
	if err != nil {
		log.Error("codex unavailable", "error", err)
		return
	}
	sess, err := bridge.NewSession(bridge.SessionConfig{
		Codex:        bridge.Config{Binary: bin, Logger: log},
		Cwd:          "/home/me/project",
		ThreadParams: map[string]any{"approvalPolicy": "on-request", "sandbox": "workspace-write"},
		Approver: bridge.ApproverFunc(func(ctx context.Context, req bridge.ApprovalRequest) (bridge.Decision, error) {
			// Ask the user about req.Command / req.Description here.
			return bridge.DecisionOnce, nil
		}),
		DynamicTools: []bridge.DynamicTool{{
			Name:        "memory_read",
			Description: "Read the user's saved notes.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{}}`),
			Handler: func(ctx context.Context, args json.RawMessage) (bridge.ToolOutput, error) {
				return bridge.TextOutput("The user prefers tabs."), nil
			},
		}},
	})
	if err != nil {
		log.Error("session", "error", err)
		return
	}
	defer sess.Close()

	res := sess.RunTurn(ctx, bridge.TextInput("Format main.go the way I like."))
	switch {
	case res.Err != nil:
		log.Error("turn failed", "error", res.Err, "retire", res.ShouldRetire)
	case res.Interrupted:
		log.Info("turn interrupted", "partial", res.FinalText)
	default:
		log.Info("turn done", "answer", res.FinalText, "messages", len(res.Messages), "tools", res.ToolIterations)
	}
}
