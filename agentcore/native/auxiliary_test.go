package native

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/testkit/fakechat"
)

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

func TestAuxiliaryConfigResolution(t *testing.T) {
	main := Config{Model: "main-model", Provider: "openrouter", BaseURL: "https://openrouter.ai/api/v1/", APIKey: "sk-main", MaxTurns: 7, MaxRetries: 2}
	env := map[string]string{"JUDGE_KEY": "sk-judge", "DEEPSEEK_API_KEY": "sk-ds"}
	getenv := func(k string) string { return env[k] }
	for _, tc := range []struct {
		name, yaml, task string
		want             Config
		wantErr          string
	}{
		{name: "no section keeps the main model", yaml: "model: x\n", task: AuxTitle, want: main},
		{name: "auto keeps the main model", yaml: "auxiliary:\n  title_generation:\n    provider: auto\n    model: auto\n", task: AuxTitle, want: main},
		{name: "provider main keeps the main endpoint", yaml: "auxiliary:\n  flush_memories:\n    provider: main\n    model: ''\n", task: AuxFlush, want: main},
		{name: "model only swaps the model", yaml: "auxiliary:\n  compression:\n    model: cheap\n", task: AuxCompression,
			want: Config{Model: "cheap", Provider: "openrouter", BaseURL: main.BaseURL, APIKey: "sk-main", MaxTurns: 7, MaxRetries: 2}},
		{name: "base_url and key_env make a custom route", yaml: "auxiliary:\n  goal_judge:\n    base_url: http://127.0.0.1:9/v1\n    model: judge\n    key_env: JUDGE_KEY\n", task: AuxGoalJudge,
			want: Config{Model: "judge", Provider: "custom", BaseURL: "http://127.0.0.1:9/v1", APIKey: "sk-judge", MaxTurns: 7, MaxRetries: 2}},
		{name: "provider alone takes the table endpoint and key", yaml: "auxiliary:\n  session_search:\n    provider: deepseek\n    model: deepseek-chat\n", task: AuxSearch,
			want: Config{Model: "deepseek-chat", Provider: "deepseek", BaseURL: "https://api.deepseek.com/v1/", APIKey: "sk-ds", KeyHint: "DEEPSEEK_API_KEY", MaxTurns: 7, MaxRetries: 2}},
		{name: "another provider needs a model", yaml: "auxiliary:\n  goal_judge:\n    provider: deepseek\n", task: AuxGoalJudge, wantErr: "set auxiliary.goal_judge.model"},
		{name: "not a mapping", yaml: "auxiliary:\n  goal_judge: fast\n", task: AuxGoalJudge, wantErr: "must be a mapping"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := AuxiliaryConfig(writeConfig(t, tc.yaml), tc.task, main, getenv)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.want.KeyHint == "" {
				got.KeyHint = ""
			}
			if got != tc.want {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestDelegationConfig(t *testing.T) {
	main := Config{Model: "main-model", Provider: "custom", BaseURL: "http://127.0.0.1:1/v1", APIKey: "k", MaxTurns: 7}
	home := writeConfig(t, "delegation:\n  provider: deepseek\n  model: deepseek-chat\n  max_iterations: 50\n")
	got, err := DelegationConfig(home, main, func(k string) string { return map[string]string{"DEEPSEEK_API_KEY": "sk-ds"}[k] })
	if err != nil || got.Model != "deepseek-chat" || got.BaseURL != "https://api.deepseek.com/v1/" || got.APIKey != "sk-ds" {
		t.Fatalf("got %+v, %v", got, err)
	}
	if got, err := DelegationConfig(writeConfig(t, "delegation:\n  max_iterations: 5\n"), main, nil); err != nil || got != main {
		t.Fatalf("empty route: got %+v, %v", got, err)
	}
}

// TestEachAuxiliaryTaskReachesItsOwnFake routes every side task to its own
// loopback server and checks each request lands there with its model and key.
func TestEachAuxiliaryTaskReachesItsOwnFake(t *testing.T) {
	tasks := []string{AuxTitle, AuxCompression, AuxGoalJudge, AuxSearch, AuxVision}
	fakes := map[string]*fakechat.Server{}
	var y strings.Builder
	y.WriteString("auxiliary:\n")
	for _, task := range tasks {
		fc := fakechat.New(fakechat.Reply{Text: "from " + task})
		defer fc.Close()
		fakes[task] = fc
		y.WriteString("  " + task + ":\n    base_url: " + fc.BaseURL() + "\n    model: m-" + task + "\n    api_key: k-" + task + "\n")
	}
	mainFake := fakechat.New()
	defer mainFake.Close()
	home := writeConfig(t, y.String())
	main := Config{Model: "main", Provider: "custom", BaseURL: mainFake.BaseURL(), APIKey: "k-main", MaxTurns: 3}
	for _, task := range tasks {
		cfg, err := AuxiliaryConfig(home, task, main, func(string) string { return "" })
		if err != nil {
			t.Fatal(err)
		}
		res, err := newRuntime(t, Options{Config: cfg}).RunTurn(context.Background(), nil, "side task")
		if err != nil || res.FinalResponse != "from "+task {
			t.Fatalf("%s: res = %+v, err = %v", task, res, err)
		}
		reqs := fakes[task].Requests()
		if len(reqs) != 1 || reqs[0].Body["model"] != "m-"+task || reqs[0].Header.Get("Authorization") != "Bearer k-"+task {
			t.Errorf("%s: requests = %+v", task, reqs)
		}
	}
	if n := len(mainFake.Requests()); n != 0 {
		t.Errorf("main model got %d requests meant for auxiliary tasks", n)
	}
}
