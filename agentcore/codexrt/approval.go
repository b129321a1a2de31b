package codexrt

import (
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/agentcore"
)

// neverRefusal is how codex answers an MCP tool call that needs approval
// under approval_policy "never" (codex-app-server.md §11.3).
const neverRefusal = "approval policy is never"

// approvalNotes tells the user about hermes-tools calls codex refused
// because they need approval and codex may not ask: the model only learns
// the call failed, and the fix is the user's (hermes-migrate writes
// default_tools_approval_mode = "approve" for hermes-tools when asked to).
func approvalNotes(msgs []agentcore.Message) []string {
	calls := map[string]string{} // tool call id -> function name
	for _, m := range msgs {
		for _, tc := range m.ToolCalls {
			calls[tc.ID] = tc.Function.Name
		}
	}
	var notes []string
	seen := map[string]bool{}
	for _, m := range msgs {
		if m.Role != "tool" || !strings.Contains(m.Content, neverRefusal) {
			continue
		}
		name := calls[m.ToolCallID]
		tool, ok := strings.CutPrefix(name, "mcp."+hermesToolsServer+".")
		if !ok || seen[tool] {
			continue
		}
		seen[tool] = true
		notes = append(notes, fmt.Sprintf("codex refused hermes-tools' %s: it asks for approval and codex's approval_policy is \"never\". "+
			"Run `hermes-migrate --tools-approval approve` to let codex run hermes-tools without asking.", tool))
	}
	return notes
}
