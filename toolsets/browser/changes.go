package browser

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"strings"
)

// changesBudget bounds the changes an action's result carries: enough for
// a dialog that opened or a list that grew, small next to a snapshot.
const changesBudget = 2000

// addChanges puts into an action's result what changed on the page since
// the model last looked at it (the latest snapshot or action result): the
// controls, headings and text lines added (+), changed (~) and removed
// (-), with refs, so the model need not take a snapshot to see what its
// action did. After a navigation it carries the new page's outline.
func (c *call) addChanges(ctx context.Context, res map[string]any) {
	if c.t.openDialog() != nil || ctx.Err() != nil {
		// A dialog freezes the page: the result reports the dialog.
		return
	}
	if nav, _ := res["navigated"].(bool); nav {
		// A new page has nothing to compare with: the result carries its
		// outline, as browser_navigate's does, so the model goes on
		// without a snapshot call. (A page restored from the back/forward
		// cache is described afresh too: the snapshot replaces the view
		// of the earlier visit.)
		if st, body := c.documentStatus(ctx); st >= 400 {
			// As browser_navigate says it: an error answer shown as a
			// page is not the site.
			res["navigation_error"] = fmt.Sprintf("the server answered HTTP %d %s; the outline is its error page", st, http.StatusText(st))
			if st == http.StatusBadGateway && strings.HasPrefix(body, "upstream: ") {
				res["navigation_error"] = "could not reach the host: " + proxyCause(body)
			}
		}
		_, full, err := c.snapshotResult(ctx, snapOpts{bare: true}, res)
		if err != nil || full == nil {
			res["changes"] = "the tab navigated to the url and title above; browser_snapshot reads the new page"
			return
		}
		maps.Copy(res, full)
		return
	}
	out, err := worldCall[struct {
		None    bool   `json:"none"`
		Text    string `json:"text"`
		Count   int    `json:"count"`
		More    int    `json:"more"`
		WalkCut bool   `json:"walkCut"`
		Next    int    `json:"next"`
		// Resume is the interactive outline's line of the first changed
		// control left out, or -1.
		Resume int `json:"resume"`
		// TextLeft: text lines were among the changes left out.
		TextLeft bool `json:"textLeft"`
	}](ctx, c.t, c.ts.refSeq, "changes", changesBudget)
	if err != nil {
		// The action itself succeeded; a page that cannot be read now
		// (a dialog opened, it is navigating) is said, not failed.
		res["changes"] = "unknown: the page could not be read after the action; browser_snapshot shows it"
		return
	}
	if out.Next > c.ts.refSeq {
		c.ts.refSeq = out.Next
	}
	switch {
	case out.None:
		res["changes"] = "no earlier view of this page to compare with; browser_snapshot reads it"
	case out.Count == 0:
		res["changes"] = "none: the page's controls, headings and text are as the model last saw them"
	default:
		text := redactFrameURLs(out.Text)
		switch {
		case out.More > 0 && out.Resume >= 0:
			text += fmt.Sprintf("\n[%d more changes; browser_snapshot with offset=%d lists the page from the first changed control not shown", out.More, out.Resume)
			if out.TextLeft {
				text += "; full=true shows its text"
			}
			text += "]"
		case out.More > 0:
			text += fmt.Sprintf("\n[%d more changes; browser_snapshot full=true shows the page]", out.More)
		}
		if out.WalkCut {
			text += "\n[the page is too large to compare whole: only its first part was]"
		}
		res["changes"] = text
	}
}
