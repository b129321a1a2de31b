package browser

import (
	"context"
	"errors"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// BrowserPages lists the running browser's pages (their URLs) by browser
// context ("" is the default one) and the contexts made besides it, as
// Chromium itself reports them: the tests' proof that a session's pages
// and context are gone.
func BrowserPages(s *Session) (pages map[string][]string, contexts []string, err error) {
	s.mu.Lock()
	rb := s.br
	s.mu.Unlock()
	if rb == nil {
		return nil, nil, errors.New("the browser has not started")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	targets, err := chromedp.CallBrowser(rb.onBrowser(ctx), target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		return nil, nil, err
	}
	pages = map[string][]string{}
	for _, ti := range targets.TargetInfos {
		if ti.Type == "page" {
			pages[string(ti.BrowserContextID)] = append(pages[string(ti.BrowserContextID)], ti.URL)
		}
	}
	bcs, err := chromedp.CallBrowser(rb.onBrowser(ctx), target.GetBrowserContexts, cdp.Empty{})
	if err != nil {
		return nil, nil, err
	}
	for _, id := range bcs.BrowserContextIDs {
		contexts = append(contexts, string(id))
	}
	if d := string(bcs.DefaultBrowserContextID); d != "" {
		pages[""] = append(pages[""], pages[d]...)
		delete(pages, d)
	}
	return pages, contexts, nil
}
