package agent

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/hermes-go/hermes/agentcore"
	"github.com/hermes-go/hermes/agentcore/native"
)

// titleSetter is a Store that can record a generated title with its
// provenance (statedb.Store).
type titleSetter interface {
	SetAutoTitle(ctx context.Context, sessionID, title, source string) (string, error)
}

// Limits of a generated title, as the original's titler has them: the
// opening message is cut to titleInputChars, the reply bounded by
// titleMaxTokens, and a "title" of more than titleMaxWords words is an
// answer to the message, not a name for it.
const (
	titleInputChars = 1000
	titleMaxTokens  = 512
	titleMaxWords   = 12
	titleTimeout    = 60 * time.Second
	titleGrace      = 10 * time.Second
)

const titlePrompt = `You name chat sessions so their user can find them again in a list. You are given the user's opening message.

Write a title of 3 to 7 words, in sentence case, in the language of the message, naming what the user wants done. Keep technical terms, file names, numbers and error codes exact. No quotes, no trailing punctuation, no "Title:" prefix. Never answer the message; name it. For a bare greeting, use "Friendly greeting".

Reply with JSON only: {"title": "..."}`

// maybeTitle starts naming an untitled session after its first answered
// turn, on auxiliary.title_generation (the main model by default), as the
// original does; auxiliary.title_generation.enabled or
// .model_upgrade_enabled set to false turn it off. It runs beside the
// chat and never holds it up; a failure leaves the session untitled (its
// first question shows in the session list).
func (c *Conversation) maybeTitle(res agentcore.Result) {
	c.titleMu.Lock()
	titled := c.meta.Title != "" || c.autoTitle != ""
	c.titleMu.Unlock()
	if c.titleStarted || !res.Completed || titled {
		return
	}
	ts, ok := c.store.(titleSetter)
	if !ok || c.store == nil || c.bgCtx == nil {
		return
	}
	c.titleStarted = true
	home := c.opts.HermesHome
	if !native.AuxFlag(home, native.AuxTitle, "enabled", true) || !native.AuxFlag(home, native.AuxTitle, "model_upgrade_enabled", true) {
		return
	}
	if strings.TrimSpace(c.opts.Getenv("HERMES_KANBAN_TASK")) != "" {
		// A kanban worker's session is named by its task, not by a
		// model call the board did not ask for.
		return
	}
	opening := ""
	for _, m := range c.history {
		if m.Role == "user" && strings.TrimSpace(m.Content) != "" {
			opening = m.Content
			break
		}
	}
	if opening == "" {
		return
	}
	if r := []rune(opening); len(r) > titleInputChars {
		opening = string(r[:titleInputChars])
	}
	id := c.meta.ID
	c.bg.Go(func() {
		ctx, cancel := context.WithTimeout(c.bgCtx, titleTimeout)
		defer cancel()
		raw, err := c.SideTask(ctx, native.AuxTitle, native.SideRequest{System: titlePrompt, User: opening, MaxTokens: titleMaxTokens})
		if err != nil {
			c.opts.Logger.Debug("session title not generated", "session", id, "err", err)
			return
		}
		title := parseTitle(raw)
		if title == "" {
			c.opts.Logger.Debug("session title rejected", "session", id, "reply", raw)
			return
		}
		got, err := ts.SetAutoTitle(context.WithoutCancel(ctx), id, title, "llm")
		if err != nil {
			c.opts.Logger.Debug("session title not saved", "session", id, "err", err)
			return
		}
		c.titleMu.Lock()
		c.autoTitle = got
		c.titleMu.Unlock()
	})
}

// parseTitle takes the title out of the model's reply: the JSON object
// asked for, or failing that its first line, unquoted; "" when what came
// back is no title.
func parseTitle(raw string) string {
	text := strings.TrimSpace(raw)
	text = strings.TrimPrefix(strings.TrimPrefix(text, "```json"), "```")
	text = strings.TrimSpace(strings.TrimSuffix(text, "```"))
	var obj struct {
		Title string `json:"title"`
	}
	if i, j := strings.Index(text, "{"), strings.LastIndex(text, "}"); i >= 0 && j > i && json.Unmarshal([]byte(text[i:j+1]), &obj) == nil {
		text = obj.Title
	} else if line, _, _ := strings.Cut(text, "\n"); line != "" {
		text = line
	}
	text = strings.TrimSpace(text)
	if l := strings.ToLower(text); strings.HasPrefix(l, "title:") {
		text = strings.TrimSpace(text[len("title:"):])
	}
	text = strings.Trim(text, "\"'`“”‘’ ")
	text = strings.TrimRight(text, ".!?;:, ")
	if text == "" || len(strings.Fields(text)) > titleMaxWords {
		return ""
	}
	return text
}
