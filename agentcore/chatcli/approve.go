package chatcli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/hermes-go/hermes/bridge"
)

// approver shows codex's command and patch approvals as Hermes' "Dangerous
// Command" prompt. Codex waits for the answer, and without a person at a
// terminal nobody can give one, so a non-terminal session denies unless the
// user chose --yes-commands up front.
type approver struct {
	out   io.Writer
	lines *lineSource
	tty   bool
	// allowNoTTY is --yes-commands: approve (once) what cannot be asked.
	allowNoTTY bool

	// mu serialises prompts: codex may ask about two commands at once and
	// the answers must not cross.
	mu sync.Mutex
}

// Approve implements bridge.Approver.
func (a *approver) Approve(ctx context.Context, req bridge.ApprovalRequest) (bridge.Decision, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.tty || a.lines == nil {
		if a.allowNoTTY {
			fmt.Fprintf(a.out, "\n✓ allowed (--yes-commands): %s\n", oneLine(req.Command))
			return bridge.DecisionOnce, nil
		}
		fmt.Fprintf(a.out, "\n✗ denied (no terminal to ask; pass --yes-commands to allow): %s\n", oneLine(req.Command))
		return bridge.DecisionDeny, nil
	}
	fmt.Fprint(a.out, renderPrompt(req))
	for {
		fmt.Fprint(a.out, "Choice [1/2/3]: ")
		line, err := a.lines.next(ctx)
		if err != nil {
			// End of input or an interrupted turn: nobody said yes.
			fmt.Fprintln(a.out, "\n✗ denied")
			return bridge.DecisionDeny, nil
		}
		if d, ok := parseChoice(line); ok {
			fmt.Fprintln(a.out, decisionText[d])
			return d, nil
		}
		fmt.Fprintln(a.out, "Please answer 1 (allow once), 2 (allow for this session) or 3 (deny).")
	}
}

var decisionText = map[bridge.Decision]string{
	bridge.DecisionOnce:    "✓ allowed once",
	bridge.DecisionSession: "✓ allowed for this session",
	bridge.DecisionDeny:    "✗ denied",
}

// parseChoice reads an answer: the option's number or its first word.
func parseChoice(s string) (bridge.Decision, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "o", "once", "y", "yes":
		return bridge.DecisionOnce, true
	case "2", "s", "session":
		return bridge.DecisionSession, true
	case "3", "d", "deny", "n", "no":
		return bridge.DecisionDeny, true
	}
	return "", false
}

// renderPrompt draws the approval box: what codex wants to run, the
// choices, and where (cwd) and why; for a patch, the change summary.
func renderPrompt(req bridge.ApprovalRequest) string {
	title := "Dangerous Command"
	if req.Kind == bridge.ApproveFileChange {
		title = "File Change"
	}
	body := []string{title, ""}
	body = append(body, wrap(req.Command, 72)...)
	if req.Kind == bridge.ApproveFileChange && req.Changes != "" {
		body = append(body, "")
		body = append(body, wrap("changes: "+req.Changes, 72)...)
	}
	body = append(body, "", "1. Allow once", "2. Allow for this session", "3. Deny", "")
	where := "Codex asks to run this in " + orDash(req.Cwd)
	if req.Kind == bridge.ApproveFileChange {
		where = "Codex asks to apply this patch"
		if req.GrantRoot != "" {
			where += " with write access to " + req.GrantRoot
		} else if req.Cwd != "" {
			where += " in " + req.Cwd
		}
	}
	body = append(body, wrap(where, 72)...)
	if req.Reason != "" {
		body = append(body, wrap("reason: "+req.Reason, 72)...)
	}
	width := 0
	for _, l := range body {
		width = max(width, utf8.RuneCountInString(l))
	}
	var b strings.Builder
	b.WriteString("\n╭" + strings.Repeat("─", width+2) + "╮\n")
	for _, l := range body {
		b.WriteString("│ " + l + strings.Repeat(" ", width-utf8.RuneCountInString(l)) + " │\n")
	}
	b.WriteString("╰" + strings.Repeat("─", width+2) + "╯\n")
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "the session's directory"
	}
	return s
}

// wrap breaks s into lines of at most n runes, splitting long words too,
// so a long command cannot push the box past the terminal's edge.
func wrap(s string, n int) []string {
	var out []string
	for _, para := range strings.Split(s, "\n") {
		r := []rune(para)
		if len(r) == 0 {
			out = append(out, "")
		}
		for len(r) > 0 {
			k := min(n, len(r))
			out = append(out, string(r[:k]))
			r = r[k:]
		}
	}
	return out
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 120 {
		s = string(r[:119]) + "…"
	}
	return s
}

// codexProgress is the progress line for a codex notification: one per tool
// item codex starts (commands, patches, MCP and dynamic tool calls), the
// counterpart of the native runtime's OnToolCall line; "" for the rest.
func codexProgress(n bridge.Notification) string {
	if n.Method != "item/started" {
		return ""
	}
	var p struct {
		Item struct {
			Type    string `json:"type"`
			Command string `json:"command"`
			Server  string `json:"server"`
			Tool    string `json:"tool"`
		} `json:"item"`
	}
	if json.Unmarshal(n.Params, &p) != nil {
		return ""
	}
	it := p.Item
	switch it.Type {
	case "commandExecution":
		return "⚙ exec " + oneLine(it.Command)
	case "fileChange":
		return "⚙ apply_patch"
	case "mcpToolCall":
		return "⚙ " + it.Server + "." + it.Tool
	case "dynamicToolCall":
		return "⚙ " + it.Tool
	}
	return ""
}
