package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// Bounds of browser_find: a search answers in one call, in a few hundred
// tokens, or says how to narrow it.
const (
	findDefaultMatches = 10
	findMaxMatches     = 20
	findBudget         = 4000 // bytes of match lines
)

// find searches the current page's whole outline (controls and text) by
// text, accessible name or role, and returns the matching lines with their
// refs and the containers they sit in: what a model would otherwise read a
// whole snapshot (or several pages of one) for.
func (s *Session) find(ctx context.Context, c *call, raw json.RawMessage) (tooldef.Result, error) {
	args, err := tooldef.DecodeArgs[struct {
		Query      string `json:"query"`
		Role       string `json:"role"`
		Selector   string `json:"selector"`
		MaxResults int    `json:"max_results"`
	}](raw)
	if err != nil {
		return tooldef.Errorf("%v", err), nil
	}
	query, role := strings.TrimSpace(args.Query), strings.ToLower(strings.TrimSpace(args.Role))
	if query == "" && role == "" {
		return tooldef.Errorf("browser_find needs a query (text or name to look for) or a role (e.g. button, link, textbox)"), nil
	}
	limit := args.MaxResults
	if limit <= 0 {
		limit = findDefaultMatches
	}
	if limit > findMaxMatches {
		return tooldef.Errorf("max_results=%d is over the limit of %d; narrow the query or the role instead", limit, findMaxMatches), nil
	}
	out, err := worldCall[struct {
		Matches           string `json:"matches"`
		Shown             int    `json:"shown"`
		Total             int    `json:"total"`
		Cut               int    `json:"cut"`
		WalkCut           bool   `json:"walkCut"`
		CrossOriginFrames int    `json:"crossOriginFrames"`
		Next              int    `json:"next"`
		Error             string `json:"error"`
	}](ctx, c.t, c.ts.refSeq, "find", map[string]any{
		"query": query, "role": role, "selector": args.Selector, "max": limit, "budget": findBudget,
	})
	if err != nil {
		return snapshotFailure(err)
	}
	if out.Next > c.ts.refSeq {
		c.ts.refSeq = out.Next
	}
	if out.Error != "" {
		return tooldef.Errorf("%s; pass a CSS selector that exists on the page, or omit selector", out.Error), nil
	}
	res := map[string]any{"success": true, "count": out.Shown, "total": out.Total}
	c.where(ctx).addTo(res)
	res["matches"] = redactFrameURLs(out.Matches)
	var notes []string
	switch {
	case out.Total == 0:
		notes = append(notes, "nothing on the page matches; browser_snapshot shows what is there")
	case out.Shown < out.Total:
		notes = append(notes, fmt.Sprintf("%d of %d matches shown; narrow the query, add a role, or pass a selector", out.Shown, out.Total))
	}
	if out.WalkCut {
		notes = append(notes, "the page is too large to search whole: only its first part was searched")
	}
	if out.CrossOriginFrames > 0 {
		notes = append(notes, fmt.Sprintf("%d cross-origin iframe(s) not searched", out.CrossOriginFrames))
	}
	if len(notes) > 0 {
		res["note"] = strings.Join(notes, "; ")
	}
	return tooldef.OK(res), nil
}
