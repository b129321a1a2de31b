package mcpserver

import (
	"os"
	"slices"

	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/mcpserver/browser"
	"github.com/hermes-go/hermes/mcpserver/kanban"
	mediapkg "github.com/hermes-go/hermes/mcpserver/media"
	"github.com/hermes-go/hermes/mcpserver/memory"
	"github.com/hermes-go/hermes/mcpserver/sessions"
	"github.com/hermes-go/hermes/mcpserver/skills"
	"github.com/hermes-go/hermes/mcpserver/todo"
	"github.com/hermes-go/hermes/mcpserver/tooldef"
	"github.com/hermes-go/hermes/mcpserver/web"
)

// Env is what toolsets need to know about the process they run in.
type Env struct {
	// Home is the resolved, absolute Hermes home.
	Home string
	// Config is the Hermes home's config.yaml.
	Config hermeshome.Config
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
	// Skills is the library the skills toolset serves; nil builds one with
	// NewSkillsLibrary. Pass the same library as Options.Skills so the
	// skills extension and the tools share one index.
	Skills *skills.Library
	// BrowserPath is the Chromium binary from the command line; empty means
	// $CHROME_PATH, then discovery.
	BrowserPath string
}

// Toolbox is every toolset this build ships, with the resources behind
// them (a browser started on first use). Its owner closes it.
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

// Builtin returns every toolset this build ships, in presentation order
// (the Python Hermes' order: web, browser, vision, image, skills, speech,
// kanban, then the stateful tools it kept in the agent loop).
func Builtin(env Env) (*Toolbox, error) {
	getenv := env.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	lib := env.Skills
	if lib == nil {
		var err error
		if lib, err = NewSkillsLibrary(env); err != nil {
			return nil, err
		}
	}
	mo := mediapkg.Options{Home: env.Home, Getenv: getenv}
	browserOpts := browser.Options{Home: env.Home, Getenv: getenv, ExecPath: env.BrowserPath}
	// browser_vision shares vision_analyze's model; without one it is
	// hidden with the same reason.
	if err := mediapkg.NewVision(mo).Check(); err != nil {
		browserOpts.VisionUnavailable = err.Error()
	} else {
		browserOpts.Vision = mediapkg.VisionFunc(mo)
	}
	br := browser.New(browserOpts)
	toolsets := []tooldef.Toolset{
		// Web, vision, image and speech tools are on by default: each hides
		// itself (with the reason in `doctor`) until its backend is
		// configured, and web_extract and espeak-ng speech need no key.
		web.Toolset(web.Options{Home: env.Home, Getenv: getenv}),
		// The browser is on by default too: Chromium starts only on the
		// first browser call, and the tools hide when none is installed.
		br.Toolset(),
		mediapkg.VisionToolset(mo),
		mediapkg.ImageToolset(mo),
		lib.Toolset(),
		mediapkg.TTSToolset(mo),
		// Stateful toolsets keep their state in durable stores shared with
		// the Python Hermes (kanban.db, memories/, state.db) or of their
		// own (hermes-tools/todo.db), so every MCP process sees the same
		// state. Which are on by default, and why:
		//   - kanban: on, but each tool hides itself unless this process is
		//     a dispatcher worker (HERMES_KANBAN_TASK) or an orchestrator
		//     profile ("kanban" in config.yaml toolsets), exactly as in
		//     Hermes. Default-on matters: a codex worker whose callback
		//     lacks the tools cannot report back and hangs until the
		//     dispatcher times it out.
		//   - memory: on. It is Hermes' own memory, which the agent has
		//     outside MCP too, and the only way for an MCP client to keep
		//     what it learns for later sessions; config.yaml's
		//     memory.memory_enabled / user_profile_enabled still apply.
		//   - session_search: on. It only reads, and recalling earlier
		//     conversations is why Hermes keeps them.
		//   - todo: off. Codex, Claude Code and most clients bring their
		//     own plan/todo tool; a second one costs context and splits the
		//     plan. Enable it for clients without one.
		kanban.Toolset(kanban.Options{Home: env.Home, Getenv: getenv}),
		memory.Toolset(memory.Options{Home: env.Home}),
		sessions.Toolset(sessions.Options{Home: env.Home, Getenv: getenv}),
		todo.Toolset(todo.Options{Home: env.Home, Getenv: getenv}),
	}
	return &Toolbox{Toolsets: toolsets, browser: br}, nil
}

// EnvVarNames returns, sorted and without duplicates, every environment
// variable the toolsets read.
func EnvVarNames(toolsets []tooldef.Toolset) []string {
	var out []string
	for _, ts := range toolsets {
		out = append(out, ts.EnvVars...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
