package main

import (
	"database/sql"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/hermesstate/statetest"
	"github.com/hermes-go/hermes/internal/testkit/fakechat"
)

func route(task string, fake *fakechat.Server, model string) string {
	return "  " + task + ":\n    provider: custom\n    base_url: " + fake.BaseURL() + "\n    model: " + model + "\n    api_key: key-" + task + "\n"
}

// waitTitle polls state.db for the session's title: the title is written
// beside the chat, after the answer.
func waitTitle(t *testing.T, path, id string) (string, string) {
	t.Helper()
	db := statetest.OpenRaw(t, path)
	deadline := time.Now().Add(20 * time.Second)
	for {
		var title, source sql.NullString
		if err := db.QueryRow("SELECT title, title_source FROM sessions WHERE id = ?", id).Scan(&title, &source); err != nil {
			t.Fatal(err)
		}
		if title.Valid || time.Now().After(deadline) {
			return title.String, source.String
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Side tasks go to their own routes: the session title to
// auxiliary.title_generation, the background memory review to
// auxiliary.background_review, the goal verdict to auxiliary.goal_judge;
// the main model sees only the conversation.
func TestSideTasksOnTheirRoutes(t *testing.T) {
	fake := fakechat.New(fakechat.Reply{Text: "The enclosure opens at nine."})
	defer fake.Close()
	titles := fakechat.New(fakechat.Reply{Text: `{"title": "Wombat enclosure opening hours"}`})
	defer titles.Close()
	reviews := fakechat.New(fakechat.Reply{Text: "Nothing to save."})
	defer reviews.Close()
	home := newHome(t, fake, "memory:\n  nudge_interval: 1\nauxiliary:\n"+route("title_generation", titles, "title-model")+route("background_review", reviews, "review-model"))
	path := filepath.Join(home, "state.db")
	statetest.OriginalV30(t, path)

	code, _, errOut := runCLI(t, testDeps(nil), "", "chat", "-q", "When does the wombat enclosure open?", "--hermes-home", home, "--hermes-tools-command", buildTools(t))
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	id := regexp.MustCompile(`session (\S+) \(continue it`).FindStringSubmatch(errOut)[1]
	if title, source := waitTitle(t, path, id); title != "Wombat enclosure opening hours" || source != "llm" {
		t.Errorf("title %q (source %q), want the title model's, as llm", title, source)
	}
	if n := len(fake.Requests()); n != 1 {
		t.Errorf("main model got %d requests, want only the turn", n)
	}
	for name, srv := range map[string]*fakechat.Server{"title_generation": titles, "background_review": reviews} {
		reqs := srv.Requests()
		if len(reqs) != 1 {
			t.Errorf("%s route got %d requests, want 1", name, len(reqs))
			continue
		}
		if got := reqs[0].Header.Get("Authorization"); got != "Bearer key-"+name {
			t.Errorf("%s went with key %q", name, got)
		}
		var texts []string
		for _, m := range reqs[0].Messages() {
			texts = append(texts, fakechat.TextOf(m))
		}
		if !strings.Contains(strings.Join(texts, "|"), "When does the wombat enclosure open?") {
			t.Errorf("%s was not given the conversation: %q", name, texts)
		}
	}
	statetest.Check(t, path, statetest.Expect{Version: 30})
}

// Without a route the title falls back to the main model; a title the
// user typed is never replaced by a generated one.
func TestTitleFallsBackToTheMainModel(t *testing.T) {
	fake := fakechat.New()
	defer fake.Close()
	fake.SetHandler(func(r fakechat.Request) fakechat.Reply {
		if m := r.Messages(); strings.Contains(fakechat.TextOf(m[0]), "You name chat sessions") {
			return fakechat.Reply{Text: "Title: \"Kiwi export paperwork.\""}
		}
		return fakechat.Reply{Text: "Here is the form."}
	})
	home := newHome(t, fake, "auxiliary:\n  title_generation:\n    provider: main\n")
	path := filepath.Join(home, "state.db")
	tools := buildTools(t)
	code, _, errOut := runCLI(t, testDeps(nil), "", "chat", "-q", "Which form do I need to export kiwis?", "--hermes-home", home, "--hermes-tools-command", tools)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	id := regexp.MustCompile(`session (\S+) \(continue it`).FindStringSubmatch(errOut)[1]
	if title, source := waitTitle(t, path, id); title != "Kiwi export paperwork" || source != "llm" {
		t.Errorf("title %q (source %q), want the main model's", title, source)
	}

	code, out, errOut := runCLI(t, testDeps(nil), "/title My kiwis\nmore\n/title\n/quit\n", "chat", "--hermes-home", home, "--hermes-tools-command", tools)
	if code != exitOK || !strings.Contains(out, "Title: My kiwis") {
		t.Fatalf("exit %d stdout %q stderr %q", code, out, errOut)
	}
	id2 := regexp.MustCompile(`session (\S+)\n`).FindStringSubmatch(out)[1]
	if title, source := waitTitle(t, path, id2); title != "My kiwis" || source != "user" {
		t.Errorf("title %q (source %q): the user's title was replaced", title, source)
	}
}
