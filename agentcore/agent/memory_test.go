package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/testkit/fakechat"
	"github.com/hermes-go/hermes/internal/testkit/toolsbuild"
)

// A memory saved in one chat (through hermes-tools' memory tool) is in
// the next chat's system prompt, with Hermes' framing; the chat that saved
// it keeps the snapshot it started with.
func TestNativeMemoryReachesTheNextChat(t *testing.T) {
	tools := toolsbuild.ServerBinary(t)
	fake := fakechat.New(
		fakechat.Reply{ToolCalls: []fakechat.ToolCall{{ID: "c1", Name: "memory",
			Arguments: `{"action":"add","target":"user","content":"Prefers answers in French."}`}}},
		fakechat.Reply{Text: "Noted."},
		fakechat.Reply{Text: "Bonjour."},
	)
	defer fake.Close()
	home := nativeHome(t, fake)
	if err := os.MkdirAll(filepath.Join(home, "memories"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "memories", "MEMORY.md"), []byte("The repo builds with make.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	chat := func(q string) {
		c, err := Start(ctx, Options{HermesHome: home, Getenv: noEnv, ToolsBinary: tools})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if res, err := c.Turn(ctx, q); err != nil || !res.Completed {
			t.Fatalf("turn %q: %+v %v (notices %v)", q, res, err, c.Notices())
		}
	}
	chat("Remember that I prefer French.")
	chat("Hello")
	reqs := fake.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	system := func(i int) string { return fakechat.TextOf(reqs[i].Messages()[0]) }
	first, next := system(0), system(2)
	if !strings.Contains(first, "MEMORY (your personal notes)") || !strings.Contains(first, "The repo builds with make.") {
		t.Errorf("the first chat's system prompt lacks the saved memory:\n%s", first)
	}
	if strings.Contains(system(1), "Prefers answers in French.") {
		t.Error("the saving chat's snapshot changed mid-session")
	}
	for _, want := range []string{"USER PROFILE (who the user is)", "Prefers answers in French.", "The repo builds with make."} {
		if !strings.Contains(next, want) {
			t.Errorf("the next chat's system prompt lacks %q:\n%s", want, next)
		}
	}
}

// The skill review runs only when the model can call skill_manage.
func TestSkillReviewNeedsSkillManage(t *testing.T) {
	tools := toolsbuild.ServerBinary(t)
	fake := fakechat.New()
	defer fake.Close()
	home := nativeHome(t, fake)
	for _, tt := range []struct {
		name string
		opts Options
		want bool
	}{
		{"hermes-tools offers it", Options{HermesHome: home, Getenv: noEnv, ToolsBinary: tools}, true},
		{"no hermes-tools", Options{HermesHome: home, Getenv: noEnv, SkipHermesTools: true}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Start(context.Background(), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if got := c.offersSkillManage(); got != tt.want {
				t.Errorf("offersSkillManage = %v, want %v", got, tt.want)
			}
		})
	}
}
