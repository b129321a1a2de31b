//go:build unix

package realclients

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/testkit/fakeanthropic"
	"github.com/hermes-go/hermes/internal/testkit/fakechat"
	"github.com/hermes-go/hermes/internal/testkit/fakegemini"
)

// TestRealClientsResolveMigratedUserServerEnv: a Hermes MCP server whose
// env refers to the user's variables, registered with --user-servers, is
// started by the real client with the values of those variables, never
// with reference text, and the config file holds no value of them.
func TestRealClientsResolveMigratedUserServerEnv(t *testing.T) {
	// What the server must see, given the user's environment below
	// (PROBE_UNSET is not set: absent or empty are both right).
	want := map[string][]string{
		"P_TOKEN":   {"tok-value"}, // a name Gemini CLI would not pass on by itself
		"P_PLAIN":   {"plain-value"},
		"P_MIXED":   {"pre-plain-value"},
		"P_UNSET":   {absent, ""},
		"P_LITERAL": {"fixed"},
	}
	userEnv := []string{"PROBE_TOKEN=tok-value", "PROBE_PLAIN=plain-value"}
	// Claude Code 2.1.331 would start the server with the text
	// "${PROBE_UNSET}" for an unset ${PROBE_UNSET} (TestRealClientEnvExpansion);
	// hermes-migrate writes ${PROBE_UNSET:-} for it, so P_UNSET is "" as
	// Hermes itself would pass it.
	for _, client := range []string{"claude-code", "gemini", "mastracode"} {
		t.Run(client, func(t *testing.T) {
			if client == "mastracode" {
				npmFileIn(t, "npm-noscripts", mastraCLI)
			} else {
				npmFile(t, map[string]string{"claude-code": claudeBin, "gemini": geminiJS}[client])
			}
			h := newClientHome(t)
			dump := filepath.Join(h.tmp, "probe-env")
			yaml := "mcp_servers:\n  probe:\n    command: /bin/sh\n" +
				"    args: [\"-c\", 'env > \"$0\"; exit 1', " + dump + "]\n" +
				"    env:\n" +
				"      P_TOKEN: \"${PROBE_TOKEN}\"\n" +
				"      P_PLAIN: \"${PROBE_PLAIN}\"\n" +
				"      P_MIXED: \"pre-${PROBE_PLAIN}\"\n" +
				"      P_UNSET: \"${PROBE_UNSET}\"\n" +
				"      P_LITERAL: fixed\n"
			if err := os.WriteFile(filepath.Join(h.home, ".hermes", "config.yaml"), []byte(yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			var cfg string
			switch client {
			case "claude-code":
				cfg = filepath.Join(h.home, ".claude.json")
			case "gemini":
				cfg = writeGeminiUserSettings(t, h, nil)
			case "mastracode":
				cfg = filepath.Join(h.home, ".mastracode", "mcp.json")
			}
			report := h.migrate(t, client, append([]string{"--user-servers"}, userEnv...)...)
			t.Logf("hermes-migrate:\n%s", report)
			written, err := os.ReadFile(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(written), "tok-value") || strings.Contains(string(written), "plain-value") {
				t.Errorf("%s holds the value of a variable, not a reference to it:\n%s", cfg, written)
			}
			switch client {
			case "claude-code":
				fake := fakeanthropic.New(t)
				fake.Enqueue(fakeanthropic.Reply{Text: "ok"})
				runClaude(t, h, fake, userEnv, "-p", "hi")
			case "gemini":
				fake := fakegemini.New(t)
				fake.Enqueue(fakegemini.Reply{Text: "ok"})
				runGemini(t, h, fake, userEnv, "-p", "hi")
			case "mastracode":
				runMastra(t, h, newChatModel(t, nil, fakechat.Reply{Text: "ok"}), userEnv, "-p", "hi")
			}
			t.Logf("the entry as written:\n%s", written)
			checkServerEnv(t, client, serverEnv(t, dump, client), want, nil)
		})
	}
}
