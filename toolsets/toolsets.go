// Package toolsets is the inventory of the tools hermes-tools serves: the
// one list of toolsets this build ships (Builtin), how a selection of
// them becomes a plan of exposed and hidden tools (Registry, Plan), and
// what they share (Env, the skills library). Each toolset lives in a
// package of its own below this one; the MCP protocol that serves them
// lives in mcpserver, which nothing here imports.
package toolsets

import (
	"io"
	"log/slog"
	"os"
	"sync"

	"github.com/hermes-go/hermes/internal/envref"
	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/toolsets/browser"
	"github.com/hermes-go/hermes/toolsets/cron"
	"github.com/hermes-go/hermes/toolsets/imagegen"
	"github.com/hermes-go/hermes/toolsets/internal/mediaapi"
	"github.com/hermes-go/hermes/toolsets/kanban"
	"github.com/hermes-go/hermes/toolsets/memory"
	"github.com/hermes-go/hermes/toolsets/sessions"
	"github.com/hermes-go/hermes/toolsets/skills"
	"github.com/hermes-go/hermes/toolsets/todo"
	"github.com/hermes-go/hermes/toolsets/tooldef"
	"github.com/hermes-go/hermes/toolsets/tts"
	"github.com/hermes-go/hermes/toolsets/video"
	"github.com/hermes-go/hermes/toolsets/videogen"
	"github.com/hermes-go/hermes/toolsets/vision"
	"github.com/hermes-go/hermes/toolsets/web"
	"github.com/hermes-go/hermes/toolsets/xsearch"
)

// Env is what toolsets need to know about the process they run in.
type Env struct {
	// Home is the resolved, absolute Hermes home.
	Home string
	// Config is the Hermes home's config.yaml.
	Config hermeshome.Config
	// Getenv reads the environment; nil means os.Getenv. LookupEnv is
	// the same environment for the tools that tell unset from empty; nil
	// means os.LookupEnv. hermes-tools-mcp passes the process environment
	// with the Hermes home's .env loaded over it (internal/hermesenv).
	Getenv    func(string) string
	LookupEnv func(string) (string, bool)
	// Skills is the library the skills toolset serves; nil builds one with
	// NewSkillsLibrary. Pass the same library as Options.Skills so the
	// skills extension and the tools share one index.
	Skills *skills.Library
	// BrowserPath is the Chromium binary from the command line; empty means
	// $CHROME_PATH, then discovery.
	BrowserPath string
	// BrowserAllowPrivateURLs, when set, overrides browser.allow_private_urls
	// (hermes-tools-mcp sets it false when serving off loopback).
	BrowserAllowPrivateURLs *bool
	// LookPath finds the programs tools run (Chromium, espeak-ng, the
	// commands a skill requires); nil means exec.LookPath.
	LookPath func(string) (string, error)
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
}

// Toolbox is every toolset this build ships, with the resources behind
// them (the browser, started on first use). Its owner closes it.
type Toolbox struct {
	Toolsets []tooldef.Toolset
	browser  *browser.Session
}

// Close releases the toolbox's resources: no Chromium outlives it.
func (t *Toolbox) Close() error {
	if t == nil || t.browser == nil {
		return nil
	}
	return t.browser.Close()
}

// building is what the constructors share while Builtin runs.
type building struct {
	env     Env
	getenv  func(string) string
	lib     *skills.Library
	media   mediaapi.Options
	browser *browser.Session
}

// inventory is how to build every toolset this build ships, in
// catalog order: catalog.All is the one list of toolsets (names, defaults,
// variables, what each tool needs), and tools/list, doctor, the README
// table and hermes-migrate all come from it and from what is built here;
// TestInventoryFollowsTheCatalog holds the two together.
func inventory() []func(*building) tooldef.Toolset {
	return []func(*building) tooldef.Toolset{
		func(b *building) tooldef.Toolset {
			return web.Toolset(web.Options{Home: b.env.Home, Getenv: b.getenv, Logger: b.env.Logger})
		},
		func(b *building) tooldef.Toolset {
			bo := browser.Options{Home: b.env.Home, Getenv: b.getenv, ExecPath: b.env.BrowserPath, Logger: b.env.Logger,
				AllowPrivateURLs: b.env.BrowserAllowPrivateURLs, LookPath: b.env.LookPath}
			// browser_vision looks through vision_analyze's model; without
			// one it is hidden with the same reason.
			if err := vision.Check(b.media); err != nil {
				bo.VisionUnavailable = err.Error()
			} else {
				bo.Vision = vision.Func(b.media)
			}
			b.browser = browser.New(bo)
			return b.browser.Toolset()
		},
		func(b *building) tooldef.Toolset { return vision.Toolset(b.media) },
		func(b *building) tooldef.Toolset { return video.Toolset(b.media) },
		func(b *building) tooldef.Toolset { return videogen.Toolset(b.media) },
		func(b *building) tooldef.Toolset { return imagegen.Toolset(b.media) },
		func(b *building) tooldef.Toolset { return b.lib.Toolset() },
		func(b *building) tooldef.Toolset { return tts.Toolset(b.media) },
		func(b *building) tooldef.Toolset {
			return kanban.Toolset(kanban.Options{Home: b.env.Home, Getenv: b.getenv})
		},
		func(b *building) tooldef.Toolset { return memory.Toolset(memory.Options{Home: b.env.Home}) },
		func(b *building) tooldef.Toolset {
			return sessions.Toolset(sessions.Options{Home: b.env.Home, Getenv: b.getenv, Logger: b.env.Logger})
		},
		func(b *building) tooldef.Toolset {
			return todo.Toolset(todo.Options{Home: b.env.Home, Getenv: b.getenv})
		},
		func(b *building) tooldef.Toolset {
			return xsearch.Toolset(xsearch.Options{Home: b.env.Home, Getenv: b.getenv})
		},
		func(b *building) tooldef.Toolset {
			return cron.Toolset(cron.Options{Home: b.env.Home, Getenv: b.getenv, Logger: b.env.Logger})
		},
	}
}

// Builtin returns every toolset this build ships, in presentation order.
// Building them does no I/O beyond reading config.yaml: backends, Chromium
// and databases are reached on the first call that needs them.
func Builtin(env Env) (*Toolbox, error) {
	getenv := env.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	b := &building{env: env, getenv: literalRefsUnset(getenv, env.Logger), lib: env.Skills}
	if b.lib == nil {
		var err error
		if b.lib, err = NewSkillsLibrary(env); err != nil {
			return nil, err
		}
	}
	b.media = mediaapi.Options{Home: env.Home, Getenv: b.getenv, LookPath: env.LookPath}
	inv := inventory()
	toolsets := make([]tooldef.Toolset, len(inv))
	for i, build := range inv {
		toolsets[i] = build(b)
	}
	return &Toolbox{Toolsets: toolsets, browser: b.browser}, nil
}

// literalRefsUnset wraps getenv so that a value still spelled as a
// reference, "${NAME}" or "$NAME", reads as unset. Gemini CLI hands a
// server the reference text itself when the variable is unset in its own
// environment; a tool would otherwise take it for a URL or an API key. The
// first read of each such variable logs a warning naming it.
func literalRefsUnset(getenv func(string) string, logger *slog.Logger) func(string) string {
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	var warned sync.Map
	return func(name string) string {
		v := getenv(name)
		if _, ref := envref.Whole(v); !ref {
			return v
		}
		if _, done := warned.LoadOrStore(name, true); !done {
			logger.Warn("environment variable holds an unexpanded reference; treating it as unset (the MCP client did not expand it: set the variable where the client starts, or rerun hermes-migrate)", "variable", name, "value", v)
		}
		return ""
	}
}
