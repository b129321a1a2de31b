package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/hermes-go/hermes/internal/redact"
	"github.com/hermes-go/hermes/internal/urlguard"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// browser_cdp is the original's raw DevTools escape hatch
// (tools/browser_cdp_tool.py), with its schema, gating and result shape.
//
// The original offers it only when a static CDP URL is configured
// (BROWSER_CDP_URL, browser.cdp_url): never for the browser it launches
// itself. So does this one, and it drives the tabs this MCP session owns
// in that attached browser, not a fresh websocket per call: every
// request a tab makes is held to the network policy by the request guard
// (CDP Fetch on each tab, see guard.go), so a raw call must neither turn
// that guard off nor reach past the session's own tabs. Hence an
// allow-list of domains and a few refused methods, rather than the
// original's any-method passthrough.

// cdpDocs is the protocol reference the original's errors point at.
const cdpDocs = "https://chromedevtools.github.io/devtools-protocol/"

// Timeout bounds of a call, in seconds: the original's default and clamp.
const (
	cdpDefaultTimeout = 30.0
	cdpMaxTimeout     = 300.0
)

// maxCDPResult bounds a result's JSON: a full-page screenshot fits, a heap
// snapshot dumped by value does not.
const maxCDPResult = 16 << 20

// cdpDomains are the page-level domains a call may use on a tab of the
// session. Left out: Target, Browser, Storage, SystemInfo and Tethering
// (the whole browser: other sessions' contexts, the user's own tabs),
// Fetch (it would replace or disable the request guard), Extensions, PWA
// and Cast (install or reach things outside the page).
var cdpDomains = []string{
	"Accessibility", "Animation", "Audits", "CSS", "CacheStorage", "Console", "DOM", "DOMDebugger",
	"DOMSnapshot", "DOMStorage", "Debugger", "DeviceOrientation", "Emulation", "EventBreakpoints",
	"HeapProfiler", "IO", "IndexedDB", "Input", "Inspector", "LayerTree", "Log", "Media", "Memory",
	"Network", "Overlay", "Page", "Performance", "PerformanceTimeline", "Profiler", "Runtime",
	"Security", "WebAudio",
}

// cdpRefused are methods of allowed domains that would break the
// session's isolation, with what to do instead.
var cdpRefused = map[string]string{
	"Page.close":                            "close tabs with browser_tabs (action=close)",
	"Page.crash":                            "a crashed tab helps no one; close it with browser_tabs",
	"Page.setDownloadBehavior":              "downloads would write files outside the Hermes home",
	"DOM.setFileInputFiles":                 "it would upload local files from this machine",
	"Network.getAllCookies":                 "it reads every site's cookies in the browser; use Network.getCookies (the current page's)",
	"Network.clearBrowserCookies":           "it clears the cookies of the whole browser, not only this session's pages",
	"Network.clearBrowserCache":             "it clears the cache of the whole browser, not only this session's pages",
	"Network.setRequestInterception":        "request interception is how hermes-tools checks every request against the network policy",
	"Network.continueInterceptedRequest":    "request interception is how hermes-tools checks every request against the network policy",
	"Security.setIgnoreCertificateErrors":   "certificates are always verified",
	"Security.setOverrideCertificateErrors": "certificates are always verified",
	"Security.handleCertificateError":       "certificates are always verified",
}

// cdpBrowserMethods are the browser-level methods served, without a tab.
var cdpBrowserMethods = []string{"Browser.getVersion", "Target.getTargets"}

// cdpArgs are browser_cdp's arguments as the original names them.
type cdpArgs struct {
	Method   string          `json:"method"`
	Params   json.RawMessage `json:"params"`
	TargetID string          `json:"target_id"`
	FrameID  string          `json:"frame_id"`
	Timeout  *float64        `json:"timeout"`
}

// cdpError is a failure in the original's tool_error shape: {"error": …}
// with the extra keys it adds.
func cdpError(msg string, extra ...string) tooldef.Result {
	m := map[string]any{"error": msg}
	for i := 0; i+1 < len(extra); i += 2 {
		m[extra[i]] = extra[i+1]
	}
	return tooldef.Failure(m)
}

// checkCDP is browser_cdp's availability check: the original's gate, a
// configured CDP URL.
func (s *Session) checkCDP() error {
	if err := s.checkBrowser(); err != nil {
		return err
	}
	if s.set.browser.CDPURL == "" {
		return errors.New("browser_cdp is off: it sends raw DevTools commands to a browser you attached with " +
			EnvCDPURL + " or browser.cdp_url in config.yaml (the original's /browser connect); the Chromium " +
			"hermes-tools launches itself stays behind its egress proxy and is not exposed to raw CDP")
	}
	return nil
}

func (s *Session) cdp(ctx context.Context, c *call, raw json.RawMessage) (tooldef.Result, error) {
	args, err := tooldef.DecodeArgs[cdpArgs](raw)
	if err != nil {
		return cdpError(err.Error()), nil
	}
	method := strings.TrimSpace(args.Method)
	if method == "" {
		return cdpError("'method' is required (e.g. 'Target.getTargets')", "cdp_docs", cdpDocs), nil
	}
	if err := s.checkCDP(); err != nil {
		return cdpError(err.Error(), "method", method, "cdp_docs", cdpDocs), nil
	}
	if args.FrameID != "" {
		return cdpError("frame_id routing is not available here: hermes-tools keeps no CDP supervisor session per "+
			"out-of-process iframe. Pass target_id (or nothing, for the current tab) and reach a same-origin iframe "+
			"through contentDocument in Runtime.evaluate.", "method", method, "cdp_docs", cdpDocs), nil
	}
	params := bytes.TrimSpace(args.Params)
	if len(params) == 0 || string(params) == "null" {
		params = []byte("{}")
	}
	if params[0] != '{' {
		return cdpError("'params' must be an object/dict, got "+jsonKind(params), "method", method), nil
	}
	timeout := cdpDefaultTimeout
	if args.Timeout != nil && *args.Timeout > 0 {
		timeout = min(max(*args.Timeout, 1), cdpMaxTimeout)
	}
	// The call's own deadline (browser.command_timeout) bounds this too.
	cctx, cancel := context.WithTimeout(ctx, time.Duration(timeout*float64(time.Second)))
	defer cancel()

	t := c.t
	if args.TargetID != "" {
		t = c.ts.find(target.ID(args.TargetID))
		if t == nil {
			return cdpError(fmt.Sprintf("target_id %q is not a tab of this session: list this session's tabs with "+
				"method='Target.getTargets'", args.TargetID), "method", method), nil
		}
		if !waitReady(cctx, t) {
			return cdpError(fmt.Sprintf("the tab %s is not ready (it is still attaching or has closed)", args.TargetID), "method", method), nil
		}
	}

	var result jsonv2.Value
	switch method {
	case "Target.getTargets":
		result, err = c.cdpTargets(cctx)
	case "Browser.getVersion":
		var v browser.GetVersionResult
		v, err = chromedp.CallBrowser(c.ts.onBrowser(cctx), browser.GetVersion, cdp.Empty{})
		if err == nil {
			result, err = jsonv2.Marshal(v)
		}
	default:
		if msg := c.cdpRefusal(cctx, method, params, t); msg != "" {
			return cdpError(msg, "method", method, "cdp_docs", cdpDocs), nil
		}
		result, err = chromedp.Call(onTab(cctx, t), cdp.Command[jsonv2.Value, jsonv2.Value]{Method: method}, jsonv2.Value(params))
	}
	if err != nil {
		var pe *cdproto.Error
		switch {
		case errors.As(err, &pe):
			return cdpError(fmt.Sprintf("CDP error: {'code': %d, 'message': %q}", pe.Code, pe.Message), "method", method), nil
		case ctx.Err() == nil && cctx.Err() != nil:
			return cdpError(fmt.Sprintf("CDP call timed out after %gs: waiting for response to %s", timeout, method), "method", method), nil
		}
		return tooldef.Result{}, err
	}
	if len(result) > maxCDPResult {
		return cdpError(fmt.Sprintf("the result of %s is %d bytes, more than the %d a call returns; ask for less "+
			"(a clip for screenshots, a depth for DOM.getDocument, returnByValue of a smaller value)", method, len(result), maxCDPResult),
			"method", method), nil
	}
	out := map[string]any{"success": true, "method": method, "result": redactCDP(method, result)}
	if args.TargetID != "" {
		out["target_id"] = args.TargetID
	}
	return tooldef.OK(out), nil
}

// cdpRefusal says why method may not run on tab t, or "" when it may.
func (c *call) cdpRefusal(ctx context.Context, method string, params []byte, t *tab) string {
	domain, _, ok := strings.Cut(method, ".")
	if !ok || domain == "" {
		return fmt.Sprintf("%q is not a CDP method name: write Domain.method, e.g. 'Runtime.evaluate'", method)
	}
	if !slices.Contains(cdpDomains, domain) {
		return fmt.Sprintf("CDP domain %s is refused: browser_cdp acts on this session's tabs only, and their "+
			"requests stay under the network policy. Allowed: %s on a tab, and %s.", domain,
			strings.Join(cdpDomains, ", "), strings.Join(cdpBrowserMethods, ", "))
	}
	if why, ok := cdpRefused[method]; ok {
		return fmt.Sprintf("CDP method %s is refused: %s", method, why)
	}
	var p map[string]json.RawMessage
	if err := json.Unmarshal(params, &p); err != nil {
		return "'params' is not a JSON object: " + err.Error()
	}
	switch method {
	case "Page.navigate", "Network.loadNetworkResource":
		dest := jsonString(p["url"])
		if method == "Page.navigate" && dest == "about:blank" {
			return ""
		}
		if _, err := urlguard.CheckURL(ctx, dest, c.s.set.policy(), net.DefaultResolver); err != nil {
			return fmt.Sprintf("Blocked: CDP %s target %s: %v", method, safeTarget(dest), err)
		}
	}
	if domain == "DOMStorage" || domain == "IndexedDB" || domain == "CacheStorage" {
		return storageOriginRefusal(c.ts.onBrowser(ctx), t, method, p)
	}
	return ""
}

// storageOriginRefusal keeps storage methods on the page's own origin: the
// session's browser context holds what every site it visited stored.
func storageOriginRefusal(ctx context.Context, t *tab, method string, p map[string]json.RawMessage) string {
	var origins []string
	for _, k := range []string{"securityOrigin", "storageKey"} {
		if v := jsonString(p[k]); v != "" {
			origins = append(origins, v)
		}
	}
	var id map[string]json.RawMessage
	if json.Unmarshal(p["storageId"], &id) == nil {
		for _, k := range []string{"securityOrigin", "storageKey"} {
			if v := jsonString(id[k]); v != "" {
				origins = append(origins, v)
			}
		}
	}
	if len(origins) == 0 {
		return ""
	}
	page, err := chromedp.CallBrowser(ctx, target.GetTargetInfo, target.GetTargetInfoParams{TargetID: t.id})
	if err != nil || page.TargetInfo == nil {
		return fmt.Sprintf("CDP %s: cannot tell the page's origin to check the storage it names", method)
	}
	u, err := url.Parse(page.TargetInfo.URL)
	if err != nil || u.Host == "" {
		return fmt.Sprintf("CDP %s is refused: the page has no origin of its own", method)
	}
	own := u.Scheme + "://" + u.Host
	for _, o := range origins {
		if o != own && !strings.HasPrefix(o, own+"/") {
			return fmt.Sprintf("CDP %s is refused for %s: storage methods reach the current page's origin (%s) only", method, o, own)
		}
	}
	return ""
}

// cdpTargets answers Target.getTargets with this session's tabs only, in
// the protocol's shape ({"targetInfos": [...]}).
func (c *call) cdpTargets(ctx context.Context) (jsonv2.Value, error) {
	tabs, _ := c.ts.tabList()
	infos := []*target.Info{}
	for _, t := range tabs {
		res, err := chromedp.CallBrowser(c.ts.onBrowser(ctx), target.GetTargetInfo, target.GetTargetInfoParams{TargetID: t.id})
		if err != nil || res.TargetInfo == nil {
			continue // closed since the list was taken
		}
		infos = append(infos, res.TargetInfo)
	}
	return jsonv2.Marshal(map[string]any{"targetInfos": infos})
}

// cdpBinary are result paths that hold base64 bytes (always, or when their
// object says base64Encoded: true): redaction must leave them byte-exact,
// as the original does.
var cdpBinary = map[string]struct {
	always, flagged []string
}{
	"Page.captureScreenshot":             {always: []string{"data"}},
	"Page.printToPDF":                    {always: []string{"data"}},
	"Network.streamResourceContent":      {always: []string{"bufferedData"}},
	"CacheStorage.requestCachedResponse": {always: []string{"response.body"}},
	"Network.getResponseBody":            {flagged: []string{"body"}},
	"IO.read":                            {flagged: []string{"data"}},
	"Network.getRequestPostData":         {flagged: []string{"postData"}},
	"HeadlessExperimental.beginFrame":    {always: []string{"screenshotData"}},
}

// redactCDP masks secrets in every string (keys included) of a result,
// except the method's binary fields.
func redactCDP(method string, raw jsonv2.Value) any {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return redact.String(string(raw))
	}
	spec := cdpBinary[method]
	return redactValue(v, "", spec.always, spec.flagged)
}

func redactValue(v any, path string, always, flagged []string) any {
	switch x := v.(type) {
	case string:
		return redact.String(x)
	case []any:
		for i := range x {
			x[i] = redactValue(x[i], "\x00", nil, nil) // paths never run through arrays
		}
		return x
	case map[string]any:
		b64 := x["base64Encoded"] == true
		out := make(map[string]any, len(x))
		for k, item := range x {
			p := k
			if path != "" {
				p = path + "." + k
			}
			if s, ok := item.(string); ok && (slices.Contains(always, p) || b64 && slices.Contains(flagged, p)) {
				out[k] = s
				continue
			}
			out[redact.String(k)] = redactValue(item, p, always, flagged)
		}
		return out
	}
	return v
}

func jsonString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return strings.TrimSpace(s)
}

// jsonKind names a JSON value's type as the original's message does
// (Python's type names).
func jsonKind(raw []byte) string {
	switch raw[0] {
	case '[':
		return "list"
	case '"':
		return "str"
	case 't', 'f':
		return "bool"
	default:
		return "number"
	}
}
