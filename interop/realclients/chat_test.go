//go:build unix

package realclients

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/internal/testkit/fakechat"
)

// chatModel is the fake model behind a client's OpenAI-compatible
// provider. The agent's requests get the scripted replies in order; a side
// request that side answers (OpenCode's and Kilo's session titles, asked
// of the same model in parallel with the first turn, so a plain queue
// would hand the tool call to whichever came first) gets its answer; any
// other request an error and a place in unexpected, so a side request a
// new client version adds fails the test with its body instead of taking
// a scripted reply.
type chatModel struct {
	fake *fakechat.Server
	side func(fakechat.Request) (fakechat.Reply, bool)

	mu         sync.Mutex
	script     []fakechat.Reply
	agent      []fakechat.Request
	unexpected []string
}

// newChatModel starts the fake; side may be nil.
func newChatModel(t *testing.T, side func(fakechat.Request) (fakechat.Reply, bool), script ...fakechat.Reply) *chatModel {
	t.Helper()
	m := &chatModel{fake: fakechat.New(), side: side, script: script}
	t.Cleanup(m.fake.Close)
	m.fake.SetHandler(m.reply)
	return m
}

func (m *chatModel) reply(r fakechat.Request) fakechat.Reply {
	if m.side != nil {
		if reply, ok := m.side(r); ok {
			return reply
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.agent) == len(m.script) {
		m.unexpected = append(m.unexpected, string(r.Raw))
		return fakechat.Reply{Status: 500, ErrorMessage: "the test scripted no reply for this request"}
	}
	m.agent = append(m.agent, r)
	return m.script[len(m.agent)-1]
}

// turns returns the agent's requests, side requests left out.
func (m *chatModel) turns() []fakechat.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.agent)
}

func (m *chatModel) unscripted() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.unexpected)
}

// skillsScript is the fake model's side of a skills_list round trip: a
// call of the tool name with args as call_01, then final as the answer.
func skillsScript(name, args, final string) []fakechat.Reply {
	return []fakechat.Reply{
		{ToolCalls: []fakechat.ToolCall{{ID: "call_01", Name: name, Arguments: args}}},
		{Text: final},
	}
}

// checkSkillsRoundTrip checks the agent's side of a skills_list call in
// two turns: the first offered the tool named offered, the second sent
// back exactly one tool result, for callID, holding the real server's
// answer (the skills in ~/.hermes/skills).
func checkSkillsRoundTrip(t *testing.T, client string, reqs []fakechat.Request, offered, callID string) {
	t.Helper()
	if len(reqs) != 2 {
		t.Fatalf("the fake model got %d agent requests, want 2 (tool call, then answer)", len(reqs))
	}
	if !slices.Contains(reqs[0].ToolNames(), offered) {
		t.Fatalf("%s did not offer %s; tools: %v", client, offered, reqs[0].ToolNames())
	}
	var result string
	var results int
	for _, m := range reqs[1].Messages() {
		if m["role"] == "tool" {
			results++
			if m["tool_call_id"] == callID {
				result = fakechat.TextOf(m)
			}
		}
	}
	if results != 1 || result == "" {
		t.Fatalf("tool results sent back: %d, for %s: %q\n%s", results, callID, result, reqs[1].Raw)
	}
	t.Logf("skills_list result: %s", result)
	for _, skill := range []string{"interop-alpha", "interop-notes", "interop-deploy"} {
		if !strings.Contains(result, skill) {
			t.Errorf("skills_list result lacks %s:\n%s", skill, result)
		}
	}
}
