package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// leaveWait bounds the wait for the navigation an accepted beforeunload
// releases.
const leaveWait = 5 * time.Second

// dialogInfo is a JavaScript dialog (alert, confirm, prompt, beforeunload)
// a page shows. While it is open the page runs nothing: every command that
// needs the page's renderer waits until it is answered.
type dialogInfo struct {
	Type          string `json:"type"`
	Message       string `json:"message"`
	DefaultPrompt string `json:"default_prompt,omitempty"`
}

// errDialogOpened is the cause a call's context is cancelled with when the
// page opens a dialog.
var errDialogOpened = errors.New("the page opened a dialog")

// note tells the model what is open and what to do about it.
func (d *dialogInfo) note() string {
	if d.Type == string(page.DialogTypeBeforeunload) {
		msg := "A beforeunload dialog is open: the page asks whether to leave it"
		if d.Message != "" {
			msg += fmt.Sprintf(" ('%s')", d.Message)
		}
		return msg + ". Use browser_dialog: accept=true leaves the page (a navigation that was asked for goes on), accept=false stays."
	}
	return fmt.Sprintf("A%s %s dialog is open: '%s'. Use browser_dialog to accept or dismiss it.", article(d.Type), d.Type, d.Message)
}

// article is "n" before a vowel ("An alert"), for the note's grammar.
func article(word string) string {
	if word != "" && (word[0] == 'a' || word[0] == 'e' || word[0] == 'i' || word[0] == 'o' || word[0] == 'u') {
		return "n"
	}
	return ""
}

// dialogRefusal is the result of a call made while the current page shows
// a dialog: nothing can run in the page until it is answered.
func dialogRefusal(d *dialogInfo) tooldef.Result {
	return tooldef.Failure(map[string]any{"success": false, "error": d.note(), "dialog": d})
}

func (s *Session) dialog(ctx context.Context, c *call, raw json.RawMessage) (tooldef.Result, error) {
	args, err := tooldef.DecodeArgs[struct {
		Accept     bool    `json:"accept"`
		PromptText *string `json:"prompt_text"`
	}](raw)
	if err != nil {
		return tooldef.Errorf("%v", err), nil
	}
	d := c.t.openDialog()
	if d == nil {
		return tooldef.Errorf("no dialog is open on the current page; browser_dialog answers alert, confirm, prompt and beforeunload dialogs the page opens"), nil
	}
	if args.PromptText != nil && d.Type != string(page.DialogTypePrompt) {
		return tooldef.Errorf("prompt_text is only for prompt dialogs; the open dialog is a%s %s", article(d.Type), d.Type), nil
	}
	p := page.HandleJavaScriptDialogParams{Accept: args.Accept}
	if args.PromptText != nil {
		p.PromptText = *args.PromptText
	} else if args.Accept && d.Type == string(page.DialogTypePrompt) {
		// OK on a prompt answers with what the field shows.
		p.PromptText = d.DefaultPrompt
	}
	before := c.t.state()
	if _, err := chromedp.Call(ctx, page.HandleJavaScriptDialog, p); err != nil {
		return tooldef.Result{}, fmt.Errorf("answer the dialog: %w", err)
	}
	c.t.dialogHandled()
	res := map[string]any{"success": true, "dialog": d, "accepted": args.Accept}
	if d.Type == string(page.DialogTypePrompt) && args.Accept {
		res["prompt_text"] = p.PromptText
	}
	if args.Accept && d.Type == string(page.DialogTypeBeforeunload) {
		// Leaving was accepted, so the held navigation will start; on a
		// busy machine that can take longer than an action's settle
		// window, and the result must report the page it went to.
		wctx, cancel := context.WithTimeout(ctx, leaveWait)
		_ = c.t.waitFor(wctx, func(s snap) bool { return s.navSeq != before.navSeq || s.loadSeq != before.loadSeq })
		cancel()
	}
	// What the page does next (the navigation a beforeunload held, the
	// code after a confirm) lands as an action's consequences would.
	c.afterAction(ctx, before, res)
	return tooldef.OK(res), nil
}
