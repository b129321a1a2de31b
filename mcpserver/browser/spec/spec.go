// Package spec declares the `browser` toolset without implementing it: the
// tool names, titles, descriptions, schemas and hints, the toolset's
// environment variables, and the availability checks that hide the tools
// (no Chromium installed, no vision model, a broken config.yaml).
//
// It exists so that the MCP front process (hermes-tools-mcp) can list and
// gate the browser tools without linking the implementation in
// mcpserver/browser, whose chromedp/cdproto dependency costs every spawn of
// the server start-up time; the front forwards the calls to a worker that
// does link it. The implementation builds its own toolset from this package
// too, with its real handlers, so there is one declaration of each tool.
//
// Keep this package light: the standard library, tooldef and hermeshome
// only (TestLightDependencies enforces it), and no work at package init.
package spec

import (
	"encoding/json"
	"errors"
	"sync"

	"github.com/hermes-go/hermes/mcpserver/tooldef"
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

// NoVisionModel is the reason browser_vision is hidden when the
// implementation was given no vision backend and no reason of its own.
const NoVisionModel = "browser_vision needs a vision model: configure the vision backend (OPENAI_API_KEY with VISION_MODEL, or auxiliary.vision in config.yaml)"

// Options is what the declarations and their checks depend on.
type Options struct {
	// Home is HERMES_HOME; its config.yaml may set browser.cdp_url, and a
	// config.yaml that does not parse hides the tools with the parse error.
	// Empty: no config file.
	Home string
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
	// ExecPath is the Chromium binary (--browser-path); it wins over
	// $CHROME_PATH and discovery.
	ExecPath string
	// CDPURL attaches to an existing browser; it wins over
	// $BROWSER_CDP_URL and browser.cdp_url, and makes a local Chromium
	// unnecessary.
	CDPURL string
	// VisionUnavailable, when non-empty, hides browser_vision with this
	// reason (the front computes it from the media toolset's vision
	// check); empty means browser_vision is available.
	VisionUnavailable string
}

// Toolset returns the ten browser tools. Each tool's Handler is
// bind(tool.Name); bind is called once per tool, here.
//
// The checks read config.yaml on first use rather than here, so building
// the declarations costs nothing until someone asks which tools are
// available; the result is kept, as a config.yaml error is for the life of
// the toolset. Chromium discovery runs on every check, so installing a
// browser needs no restart.
func Toolset(opts Options, bind func(toolName string) tooldef.Handler) tooldef.Toolset {
	resolve := sync.OnceValues(func() (Browser, error) {
		cfg, err := ReadConfig(opts.Home)
		if err != nil {
			return Browser{}, err
		}
		return ResolveBrowser(opts, cfg), nil
	})
	check := func() error {
		b, err := resolve()
		if err != nil {
			return err
		}
		return b.Check()
	}
	// Every tool acts on (or reads) pages from the web, so all are
	// open-world.
	act := tooldef.Hints{ReadOnly: false, Destructive: true, Idempotent: false, OpenWorld: true}
	move := tooldef.Hints{ReadOnly: false, Destructive: false, Idempotent: false, OpenWorld: true}
	read := tooldef.Hints{ReadOnly: true, Destructive: false, Idempotent: true, OpenWorld: true}
	tool := func(name, title, desc, schema string, h tooldef.Hints) tooldef.Tool {
		return tooldef.Tool{Name: name, Title: title, Description: desc, InputSchema: json.RawMessage(schema),
			Hints: h, Handler: bind(name), Check: check}
	}
	// browser_vision saves its screenshot under the Hermes home (and prunes
	// old ones), so it is not read-only, though it changes no page.
	see := tooldef.Hints{ReadOnly: false, Destructive: false, Idempotent: false, OpenWorld: true}
	vision := tool(ToolVision, "Look at the page", visionDesc, visionSchema, see)
	vision.Check = func() error {
		// A missing browser is the more fundamental reason, so it is the
		// one shown.
		if err := check(); err != nil {
			return err
		}
		if opts.VisionUnavailable != "" {
			return errors.New(opts.VisionUnavailable)
		}
		return nil
	}
	return tooldef.Toolset{
		Name:        ToolsetName,
		Description: "Drive a real headless Chromium: open pages, read them as an accessibility outline with refs, click, type, scroll, go back, read the console.",
		Default:     true,
		EnvVars:     []string{EnvCDPURL, EnvChromePath},
		Tools: []tooldef.Tool{
			tool(ToolNavigate, "Open a URL", navigateDesc, navigateSchema, move),
			tool(ToolSnapshot, "Read the page", snapshotDesc, snapshotSchema, read),
			tool(ToolClick, "Click an element", clickDesc, clickSchema, act),
			tool(ToolType, "Type into a field", typeDesc, typeSchema, act),
			tool(ToolPress, "Press a key", pressDesc, pressSchema, act),
			tool(ToolScroll, "Scroll the page", scrollDesc, scrollSchema, move),
			tool(ToolBack, "Go back", backDesc, emptySchema, move),
			tool(ToolGetImages, "List images", imagesDesc, emptySchema, read),
			tool(ToolConsole, "Console and JavaScript", consoleDesc, consoleSchema, act),
			vision,
		},
	}
}
