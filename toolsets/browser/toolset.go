// Package browser serves the `browser` toolset: browser_* tools that drive
// a real Chromium through the DevTools protocol (chromedp), with the names,
// parameters and result shapes of the Python Hermes (tools/browser_tool.py)
// plus browser_tabs.
//
// One Session owns one browser per server process. It is started on the
// first tool call, on a context of its own (never the call's, so a call's
// timeout cannot take the browser down), reused by every later call, and
// closed by Session.Close when the server exits. Chromium runs
// in its own process group with a parent-death signal, so it dies with the
// server even when the server is killed with SIGKILL. Each MCP session
// (sessionstate.State) drives tabs of its own in that browser, in a browser
// context of its own once there is more than one session (see tabset.go).
//
// Pages are described by an accessibility outline with refs ([ref=eN]) that
// the model passes back as @eN. Refs are never reused within a session: a
// ref from a page that has since navigated or reloaded, or whose element
// left the DOM, gives "stale ref, take a new snapshot" instead of acting on
// whatever element now has the number. Refs belong to the tab whose
// snapshot listed them.
//
// No page can wedge the session. A page a page opens (target=_blank,
// window.open) becomes the current tab, as a user's view would follow it,
// and the result says so; browser_tabs goes back. A JavaScript dialog ends
// the call that caused it at once, with the dialog in its result, and is
// answered with browser_dialog. Every call has a deadline; one that runs
// into it stops the script that froze the page (or replaces a tab that
// still does not answer), so the next call works.
package browser

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/hermes-go/hermes/toolsets/catalog"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// VisionFunc answers a question about a PNG screenshot with a vision model.
type VisionFunc func(ctx context.Context, imagePNG []byte, question string) (string, error)

// Options configures the browser toolset.
type Options struct {
	// Home is HERMES_HOME; config.yaml there supplies browser.* settings
	// and screenshots go to Home/cache/screenshots. Empty: no config file.
	Home string
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
	// ExecPath is the Chromium binary (a command-line flag); it wins over
	// $CHROME_PATH and discovery.
	ExecPath string
	// LookPath finds Chromium, by the configured path or by the names
	// discovery tries; nil means exec.LookPath.
	LookPath func(string) (string, error)
	// CDPURL attaches to an existing browser; it wins over
	// $BROWSER_CDP_URL and browser.cdp_url.
	CDPURL string
	// AllowPrivateURLs overrides browser.allow_private_urls (default true:
	// the local browser may open loopback and private-network pages). Cloud
	// metadata addresses are refused whatever this says.
	AllowPrivateURLs *bool
	// CallTimeout bounds every tool call; zero means
	// browser.command_timeout seconds, default 30 s.
	CallTimeout time.Duration
	// Vision backs browser_vision; nil hides that tool.
	Vision VisionFunc
	// VisionUnavailable is the reason shown when Vision is nil; it should
	// say which setting enables vision.
	VisionUnavailable string
	// ScreenshotDir receives browser_vision screenshots; empty means
	// Home/cache/screenshots, or the temp directory without a Home.
	ScreenshotDir string
	// ExtraFlags are added to Chromium's command line (name -> value, as
	// chromedp.Flag takes them); tests and benchmarks use it.
	ExtraFlags map[string]any
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
}

// ToolsetName is what users type in --toolsets.
const ToolsetName = catalog.Browser

// The tool names, in presentation order.
const (
	ToolNavigate  = catalog.BrowserNavigate
	ToolSnapshot  = catalog.BrowserSnapshot
	ToolClick     = catalog.BrowserClick
	ToolType      = catalog.BrowserType
	ToolPress     = catalog.BrowserPress
	ToolScroll    = catalog.BrowserScroll
	ToolBack      = catalog.BrowserBack
	ToolTabs      = catalog.BrowserTabs
	ToolDialog    = catalog.BrowserDialog
	ToolGetImages = catalog.BrowserGetImages
	ToolConsole   = catalog.BrowserConsole
	ToolVision    = catalog.BrowserVision
	ToolCDP       = catalog.BrowserCDP
	ToolFind      = catalog.BrowserFind
	ToolFill      = catalog.BrowserFill
)

// Snapshot size limits, shared by the browser_snapshot schema (which
// advertises them) and the implementation (which applies them). 8000 is the
// Python Hermes' threshold; a caller may ask for more, up to
// MaxSnapshotChars. The full outline is asked for to read a page's text,
// so its default holds a long article (5,000 words is about 32,000 bytes)
// in one call: paging is for what is truly long.
const (
	DefaultSnapshotChars     = 8000
	DefaultFullSnapshotChars = 40000
	MaxSnapshotChars         = 200000
)

// NoVisionModel is the reason browser_vision is hidden when Options has no
// vision backend and no reason of its own.
const NoVisionModel = "browser_vision needs a vision model: configure the vision backend (OPENAI_API_KEY with AUXILIARY_VISION_MODEL, or auxiliary.vision in config.yaml)"

// EnvVars returns the environment variables the toolset reads.
func EnvVars() []string { return catalog.Get(ToolsetName).EnvVars }

// Toolset returns the browser tools, served by this session. Their
// checks use the settings resolved at New; Chromium discovery runs on every
// check, so installing a browser needs no restart.
func (s *Session) Toolset() tooldef.Toolset {
	// Every tool acts on (or reads) pages from the web, so all are
	// open-world.
	act := tooldef.Hints{ReadOnly: false, Destructive: true, Idempotent: false, OpenWorld: true}
	move := tooldef.Hints{ReadOnly: false, Destructive: false, Idempotent: false, OpenWorld: true}
	read := tooldef.Hints{ReadOnly: true, Destructive: false, Idempotent: true, OpenWorld: true}
	tool := func(name, title, desc, schema string, h tooldef.Hints, fn handler) tooldef.Tool {
		return tooldef.Tool{Name: name, Title: title, Description: desc, InputSchema: json.RawMessage(schema),
			Hints: h, Handler: s.wrap(name, fn), Check: s.checkBrowser}
	}
	// browser_vision saves its screenshot under the Hermes home (and prunes
	// old ones), so it is not read-only, though it changes no page.
	see := tooldef.Hints{ReadOnly: false, Destructive: false, Idempotent: false, OpenWorld: true}
	vision := tool(ToolVision, "Look at the page", visionDesc, visionSchema, see, s.vision)
	// browser_tabs changes which page is current (select, close), so it is
	// not read-only; close discards a page with whatever was typed into
	// it, and hints describe a tool's most drastic action, so it is
	// destructive although list and select are not.
	tabs := act
	vision.Check = s.checkVision
	// A raw command can do anything a page can, and more.
	cdpTool := tool(ToolCDP, "Raw DevTools command", cdpDesc, cdpSchema, act, s.cdp)
	cdpTool.Check = s.checkCDP
	meta := catalog.Get(ToolsetName)
	return tooldef.Toolset{
		Name:         ToolsetName,
		Description:  meta.Description,
		Default:      meta.Default,
		Instructions: "Start with browser_navigate; act on elements by the @eN refs in the latest snapshot, and take a new snapshot when a ref is stale.",
		EnvVars:      meta.EnvVars,
		Tools: []tooldef.Tool{
			tool(ToolNavigate, "Open a URL", navigateDesc, navigateSchema, move, s.navigate),
			tool(ToolSnapshot, "Read the page", snapshotDesc, snapshotSchema, read, s.snapshot),
			tool(ToolFind, "Find on the page", findDesc, findSchema, read, s.find),
			tool(ToolClick, "Click an element", clickDesc, clickSchema, act, s.click),
			tool(ToolType, "Type into a field", typeDesc, typeSchema, act, s.typeText),
			tool(ToolFill, "Fill form fields", fillDesc, fillSchema, act, s.fill),
			tool(ToolPress, "Press a key", pressDesc, pressSchema, act, s.press),
			tool(ToolScroll, "Scroll the page", scrollDesc, scrollSchema, move, s.scroll),
			tool(ToolBack, "Go back", backDesc, emptySchema, move, s.back),
			tool(ToolTabs, "List, switch or close tabs", tabsDesc, tabsSchema, tabs, s.tabs),
			// Accepting a confirm can be what deletes or pays: it acts as
			// a click does.
			tool(ToolDialog, "Answer a dialog", dialogDesc, dialogSchema, act, s.dialog),
			tool(ToolGetImages, "List images", imagesDesc, emptySchema, read, s.images),
			tool(ToolConsole, "Console and JavaScript", consoleDesc, consoleSchema, act, s.console),
			vision,
			cdpTool,
		},
	}
}
