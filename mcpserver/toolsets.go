package mcpserver

import (
	"io"
	"log/slog"
	"os"
	"slices"

	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/internal/toolsbin"
	browserspec "github.com/hermes-go/hermes/mcpserver/browser/spec"
	"github.com/hermes-go/hermes/mcpserver/kanban"
	mediaspec "github.com/hermes-go/hermes/mcpserver/media/spec"
	"github.com/hermes-go/hermes/mcpserver/memory"
	"github.com/hermes-go/hermes/mcpserver/sessions"
	"github.com/hermes-go/hermes/mcpserver/skills"
	todospec "github.com/hermes-go/hermes/mcpserver/todo/spec"
	"github.com/hermes-go/hermes/mcpserver/tooldef"
	webspec "github.com/hermes-go/hermes/mcpserver/web/spec"
	"github.com/hermes-go/hermes/mcpserver/worker"
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
	// WorkerPath is the hermes-tools-worker binary that runs the web,
	// browser and media tools; empty means $HERMES_TOOLS_WORKER, else the
	// copy beside this program, else PATH. Without one those tools are
	// hidden, with the reason and the fix.
	WorkerPath string
	// WorkerLogLevel is passed to the worker's --log-level; empty means
	// its default.
	WorkerLogLevel string
	// WorkerStderr receives the worker's logs; nil means os.Stderr.
	WorkerStderr io.Writer
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
}

// Toolbox is every toolset this build ships, with the resources behind
// them (the worker process, started on first use). Its owner closes it.
type Toolbox struct {
	Toolsets []tooldef.Toolset
	worker   workerHandle
}

// Worker says which hermes-tools-worker the forwarded toolsets run in, or
// why there is none.
func (t *Toolbox) Worker() (path string, err error) {
	return t.worker.path, t.worker.unavailable
}

// Close releases the toolbox's resources: no worker (and so no Chromium)
// outlives it.
func (t *Toolbox) Close() error {
	if t == nil || t.worker.Client == nil {
		return nil
	}
	return t.worker.Close()
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
	wk := newWorker(env, getenv)
	bind := wk.Handler
	mo := mediaspec.Options{Home: env.Home, Getenv: getenv}
	bo := browserspec.Options{Home: env.Home, Getenv: getenv, ExecPath: env.BrowserPath}
	// browser_vision shares vision_analyze's model; without one it is
	// hidden with the same reason.
	if err := mediaspec.VisionCheck(mo); err != nil {
		bo.VisionUnavailable = err.Error()
	}
	toolsets := []tooldef.Toolset{
		// Web, vision, image and speech tools are on by default: each hides
		// itself (with the reason in `doctor`) until its backend is
		// configured, and web_extract and espeak-ng speech need no key.
		webspec.Toolset(webspec.Options{Home: env.Home, Getenv: getenv}, bind),
		// The browser is on by default too: Chromium starts only on the
		// first browser call, and the tools hide when none is installed.
		browserspec.Toolset(bo, bind),
		mediaspec.VisionToolset(mo, bind),
		mediaspec.ImageToolset(mo, bind),
		lib.Toolset(),
		mediaspec.TTSToolset(mo, bind),
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
		todospec.Toolset(todospec.Options{}, bind),
	}
	// Tools served by the worker are hidden, with the fix, when there is no
	// worker binary to serve them.
	if wk.unavailable != nil {
		for i := range toolsets {
			if forwarded[toolsets[i].Name] {
				toolsets[i] = requireWorker(toolsets[i], wk.unavailable)
			}
		}
	}
	return &Toolbox{Toolsets: toolsets, worker: wk}, nil
}

// forwarded are the toolsets that run in hermes-tools-worker (those that
// need Chromium, HTML and PDF parsing, or SQLite); Builtin
// declares them here from their spec packages, so this binary never links
// their implementations (cmd/hermes-tools-mcp tests that).
var forwarded = map[string]bool{
	"web": true, "browser": true, "vision": true, "image_gen": true, "tts": true,
	"kanban": true, "session_search": true, "todo": true,
}

type workerHandle struct {
	*worker.Client
	path        string
	unavailable error
}

func newWorker(env Env, getenv func(string) string) workerHandle {
	path, err := toolsbin.FindWorker(firstNonEmpty(env.WorkerPath, getenv("HERMES_TOOLS_WORKER")))
	args := []string{"--hermes-home", env.Home}
	if env.BrowserPath != "" {
		args = append(args, "--browser-path", env.BrowserPath)
	}
	if env.WorkerLogLevel != "" {
		args = append(args, "--log-level", env.WorkerLogLevel)
	}
	stderr := env.WorkerStderr
	if stderr == nil {
		stderr = os.Stderr
	}
	c := worker.New(worker.Config{Path: path, Unavailable: err, Args: args, Stderr: stderr, Logger: env.Logger})
	return workerHandle{Client: c, path: path, unavailable: err}
}

// requireWorker makes every tool of ts report reason when it is otherwise
// available.
func requireWorker(ts tooldef.Toolset, reason error) tooldef.Toolset {
	tools := slices.Clone(ts.Tools)
	for i := range tools {
		own := tools[i].Check
		tools[i].Check = func() error {
			if own != nil {
				if err := own(); err != nil {
					return err
				}
			}
			return reason
		}
	}
	ts.Tools = tools
	return ts
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
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
