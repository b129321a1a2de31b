package browser

import (
	"encoding/json"

	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// ToolsetName is what users type in --toolsets.
const ToolsetName = "browser"

// The tool names, in presentation order.
const (
	ToolNavigate  = "browser_navigate"
	ToolSnapshot  = "browser_snapshot"
	ToolClick     = "browser_click"
	ToolType      = "browser_type"
	ToolPress     = "browser_press"
	ToolScroll    = "browser_scroll"
	ToolBack      = "browser_back"
	ToolTabs      = "browser_tabs"
	ToolDialog    = "browser_dialog"
	ToolGetImages = "browser_get_images"
	ToolConsole   = "browser_console"
	ToolVision    = "browser_vision"
)

// Snapshot size limits, shared by the browser_snapshot schema (which
// advertises them) and the implementation (which applies them). 8000 is the
// Python Hermes' threshold; a caller may ask for more, up to
// MaxSnapshotChars.
const (
	DefaultSnapshotChars = 8000
	MaxSnapshotChars     = 200000
)

// NoVisionModel is the reason browser_vision is hidden when Options has no
// vision backend and no reason of its own.
const NoVisionModel = "browser_vision needs a vision model: configure the vision backend (OPENAI_API_KEY with AUXILIARY_VISION_MODEL, or auxiliary.vision in config.yaml)"

// EnvVars returns the environment variables the toolset reads.
func EnvVars() []string { return []string{EnvCDPURL, EnvChromePath} }

// Toolset returns the twelve browser tools, served by this session. Their
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
	return tooldef.Toolset{
		Name:         ToolsetName,
		Description:  "Drive a real headless Chromium: open pages, read them as an accessibility outline with refs, click, type, scroll, go back, switch tabs, answer dialogs, read the console.",
		Default:      true,
		Instructions: "Start with browser_navigate; act on elements by the @eN refs in the latest snapshot, and take a new snapshot when a ref is stale.",
		EnvVars:      EnvVars(),
		Tools: []tooldef.Tool{
			tool(ToolNavigate, "Open a URL", navigateDesc, navigateSchema, move, s.navigate),
			tool(ToolSnapshot, "Read the page", snapshotDesc, snapshotSchema, read, s.snapshot),
			tool(ToolClick, "Click an element", clickDesc, clickSchema, act, s.click),
			tool(ToolType, "Type into a field", typeDesc, typeSchema, act, s.typeText),
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
		},
	}
}
