//go:build unix

package codexrt

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/codextest"
	"github.com/hermes-go/hermes/internal/testkit/fakeresponses"
	"github.com/hermes-go/hermes/internal/testkit/toolsbuild"
)

func TestOneToolPerNameArgs(t *testing.T) {
	dynamic := []string{"memory", "todo_list", "session_search"}
	for _, tt := range []struct {
		name, config string
		args         []string
		want         string // the -c value, or "" for none
	}{
		{name: "not configured", config: "model = \"x\"\n"},
		{name: "no config.toml", config: "-"},
		{name: "configured", config: "[mcp_servers.hermes-tools]\ncommand = \"/bin/hermes-tools-mcp\"\n",
			want: `mcp_servers.hermes-tools.disabled_tools=["memory","todo_list","session_search"]`},
		{name: "the user's own disabled tools are kept", config: "[mcp_servers.hermes-tools]\ncommand = \"x\"\ndisabled_tools = [\"web_search\", \"todo\"]\n",
			want: `mcp_servers.hermes-tools.disabled_tools=["web_search","todo","memory","todo_list","session_search"]`},
		{name: "switched off", config: "[mcp_servers.hermes-tools]\ncommand = \"x\"\nenabled = false\n"},
		{name: "defined by an argument", config: "-", args: []string{"-c", `mcp_servers.hermes-tools={command="x"}`},
			want: `mcp_servers.hermes-tools.disabled_tools=["memory","todo_list","session_search"]`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			if tt.config != "-" {
				if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(tt.config), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			disabled, configured, err := configuredHermesTools(Config{CodexHome: home, Args: tt.args})
			if err != nil {
				t.Fatal(err)
			}
			got := oneToolPerName(configured, disabled, dynamic)
			switch {
			case tt.want == "" && len(got) != 0:
				t.Errorf("args %q, want none", got)
			case tt.want != "" && (len(got) != 2 || got[0] != "-c" || got[1] != tt.want):
				t.Errorf("args %q, want -c %s", got, tt.want)
			}
		})
	}
}

// On the agent's codex each tool reaches the model once: the in-process
// memory, todo and session_search, and hermes-tools' other tools over MCP.
func TestRealCodexOffersEachToolOnce(t *testing.T) {
	t.Parallel()
	bin := codextest.Binary(t)
	toolsBin := toolsbuild.ServerBinary(t)
	hermesHome := t.TempDir()
	fake := fakeresponses.New(t)
	home := codextest.NewHome(t)
	server := `mcp_servers.hermes-tools={command=` + strconv.Quote(toolsBin) +
		`, args=["--hermes-home", ` + strconv.Quote(hermesHome) + `, "--toolsets", "memory,session_search,skills,todo"], startup_timeout_sec=30}`
	env := home.Env(codextest.NewProxy(t).URL())
	r, err := New(Config{
		Binary: bin, Args: append(fake.CodexArgs(), "-c", server), Environ: ChildEnv(env, ""), CodexHome: home.CodexHome,
		HermesHome: hermesHome, SessionID: "once-1", Cwd: t.TempDir(),
		Model: fakeresponses.DefaultModel, Provider: "openai",
		TurnTimeout: 60 * time.Second, StartTimeout: 60 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	fake.Enqueue(fakeresponses.Text("Hello."), fakeresponses.Text("Again."))
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	for _, q := range []string{"hi", "again"} {
		if res, err := r.RunTurn(ctx, q); err != nil || !res.Completed {
			t.Fatalf("turn: %+v %v", res, err)
		}
	}
	reqs := fake.Requests()
	for _, rq := range reqs {
		t.Logf("request %d tools: %v", rq.N, rq.ToolNames())
	}
	names := reqs[len(reqs)-1].ToolNames()
	seen := map[string]string{}
	for _, n := range names {
		base := n[strings.LastIndex(n, ".")+1:]
		if prev, dup := seen[base]; dup {
			t.Errorf("tool %s offered twice: %s and %s", base, prev, n)
		}
		seen[base] = n
	}
	for _, want := range []string{"memory", "todo_list", "session_search", fakeresponses.MCPNamespace("hermes-tools") + ".skills_list"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools offered %v lack %s", names, want)
		}
	}
}

func TestOffersMCPTool(t *testing.T) {
	for _, tt := range []struct {
		config string
		want   bool
	}{
		{"[mcp_servers.hermes-tools]\ncommand = \"x\"\n", true},
		{"[mcp_servers.hermes-tools]\ncommand = \"x\"\ndisabled_tools = [\"skill_manage\"]\n", false},
		{"[mcp_servers.other]\ncommand = \"x\"\n", false},
	} {
		home := t.TempDir()
		if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(tt.config), 0o600); err != nil {
			t.Fatal(err)
		}
		r, err := New(Config{Binary: "/bin/true", CodexHome: home, HermesHome: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		if got := r.OffersMCPTool("skill_manage"); got != tt.want {
			t.Errorf("config %q: OffersMCPTool = %v, want %v", tt.config, got, tt.want)
		}
	}
}
