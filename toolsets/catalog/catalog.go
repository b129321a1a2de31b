// Package catalog is what hermes-tools ships, as data: every toolset's
// name, description, whether it is on by default and the environment
// variables it reads, and each tool's name with what it waits for before
// its check lets it be listed. It imports the standard library only, so a
// program that needs to know the tools without serving them (hermes-migrate
// writes the variables into client configs and says which tools wait for
// one) links no browser, SQLite or HTML reader.
//
// The toolset packages take their names, descriptions, defaults and
// variables from here, so the two cannot disagree; what a tool needs is
// held to the tool's own check by a test in package toolsets (every
// variable a need names unset: hidden; one of them set: not hidden for
// that reason).
package catalog

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/internal/didyoumean"
)

// Toolset is one toolset as data.
type Toolset struct {
	// Name is what users type in --toolsets and hermes_tools.toolsets.
	Name string
	// Description is one line for docs and doctor.
	Description string
	// Default toolsets are enabled when the user names none.
	Default bool
	// EnvVars names the environment variables the toolset reads. Clients
	// that do not pass their environment to MCP servers (codex) must be
	// told these names; hermes-migrate lists them.
	EnvVars []string
	// Tools are the toolset's tools, in presentation order.
	Tools []Tool
}

// Tool is one tool as data.
type Tool struct {
	// Name is the tool's wire name.
	Name string
	// Needs are what the tool waits for, all of them, under config.yaml's
	// defaults; none means its check passes wherever the server runs.
	Needs []Need
}

// Need is one thing a tool waits for before its check lets it be listed.
type Need struct {
	// Env: met when one of these variables is set (not empty).
	Env []string
	// Programs: met, too, when one of these programs is found: a name is
	// looked up on PATH, an absolute path is taken as it is. The order is
	// the order the tool tries them in.
	Programs []string
	// Config names config.yaml settings (dotted paths) that choose the
	// tool's backend some other way: while one of them is set, the tool's
	// own check decides (doctor shows it), and this need says nothing.
	Config []string
	// Dispatcher marks variables the kanban dispatcher sets in a worker's
	// environment, never the user.
	Dispatcher bool
	// OptIn marks a choice rather than a missing key (attaching to a
	// browser the user runs): reports that ask for keys leave it out.
	OptIn bool
}

// Met reports whether the environment meets the need: one of its
// variables set, or one of its programs found. lookPath nil means
// exec.LookPath.
func (n Need) Met(getenv func(string) string, lookPath func(string) (string, error)) bool {
	for _, v := range n.Env {
		if getenv(v) != "" {
			return true
		}
	}
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	for _, p := range n.Programs {
		if _, err := lookPath(p); err == nil {
			return true
		}
	}
	return false
}

// Configured reports whether config.yaml sets one of the need's Config
// settings, as set reports each.
func (n Need) Configured(set func(key string) bool) bool {
	return slices.ContainsFunc(n.Config, set)
}

// Toolset names.
const (
	Web           = "web"
	Browser       = "browser"
	Vision        = "vision"
	ImageGen      = "image_gen"
	Skills        = "skills"
	TTS           = "tts"
	Kanban        = "kanban"
	Memory        = "memory"
	SessionSearch = "session_search"
	Todo          = "todo"
	XSearch       = "x_search"
	Video         = "video"
	VideoGen      = "video_gen"
	Cron          = "cronjob"
)

// Tool names.
const (
	WebSearch  = "web_search"
	WebExtract = "web_extract"

	BrowserNavigate  = "browser_navigate"
	BrowserSnapshot  = "browser_snapshot"
	BrowserClick     = "browser_click"
	BrowserType      = "browser_type"
	BrowserPress     = "browser_press"
	BrowserScroll    = "browser_scroll"
	BrowserBack      = "browser_back"
	BrowserTabs      = "browser_tabs"
	BrowserDialog    = "browser_dialog"
	BrowserGetImages = "browser_get_images"
	BrowserConsole   = "browser_console"
	BrowserVision    = "browser_vision"
	BrowserCDP       = "browser_cdp"
	BrowserFind      = "browser_find"
	BrowserFill      = "browser_fill"

	VisionAnalyze = "vision_analyze"
	ImageGenerate = "image_generate"

	SkillsList  = "skills_list"
	SkillView   = "skill_view"
	SkillManage = "skill_manage"

	TextToSpeech = "text_to_speech"

	KanbanShow           = "kanban_show"
	KanbanList           = "kanban_list"
	KanbanComplete       = "kanban_complete"
	KanbanBlock          = "kanban_block"
	KanbanHeartbeat      = "kanban_heartbeat"
	KanbanComment        = "kanban_comment"
	KanbanAttach         = "kanban_attach"
	KanbanAttachURL      = "kanban_attach_url"
	KanbanAttachments    = "kanban_attachments"
	KanbanCreate         = "kanban_create"
	KanbanUnblock        = "kanban_unblock"
	KanbanLink           = "kanban_link"
	KanbanRequestReview  = "kanban_request_review"
	KanbanRequestChanges = "kanban_request_changes"

	MemoryTool        = "memory"
	SessionSearchTool = "session_search"
	// TodoTool is todo_list, the original's name since v2026.9.7 (it was
	// todo, which its agent still accepts as an unlisted alias).
	TodoTool = "todo_list"
	// CronTool is cronjob_manage, the original's name (it was cronjob).
	CronTool = "cronjob_manage"

	XSearchTool = "x_search"

	VideoAnalyze   = "video_analyze"
	VideoGenerate  = "video_generate"
	XAIVideoEdit   = "xai_video_edit"
	XAIVideoExtend = "xai_video_extend"
)

// Variables more than one toolset reads, or that a need names.
const (
	EnvChromePath    = "CHROME_PATH"
	EnvBrowserCDPURL = "BROWSER_CDP_URL"
	EnvSessionID     = "HERMES_SESSION_ID"
	EnvKanbanTask    = "HERMES_KANBAN_TASK"
)

// ChromiumNeed is what the browser tools wait for: a Chromium to launch,
// or a running browser to attach to (BROWSER_CDP_URL, browser.cdp_url).
// Programs are the names tried, in order, when CHROME_PATH names none. The
// Debian package's real binary comes first: /usr/bin/chromium is a shell
// wrapper that adds flags from /etc/chromium.d (extensions among them) we
// do not want; it execs the same binary, so either works. headless-shell
// is faster to start but is a different build, so it is a fallback only.
func ChromiumNeed() Need {
	return Need{
		Env: []string{EnvChromePath, EnvBrowserCDPURL},
		Programs: []string{
			"/usr/lib/chromium/chromium",
			"chromium",
			"chromium-browser",
			"google-chrome",
			"google-chrome-stable",
			"chromium-headless-shell",
			"headless_shell",
		},
		Config: []string{"browser.cdp_url"},
	}
}

// CDPNeed is what browser_cdp waits for: a running browser to attach to
// (BROWSER_CDP_URL, browser.cdp_url), never the Chromium hermes-tools
// launches behind its egress proxy.
func CDPNeed() Need {
	return Need{Env: []string{EnvBrowserCDPURL}, Config: []string{"browser.cdp_url"}, OptIn: true}
}

// VisionNeed is what vision_analyze and browser_vision wait for: a key
// for OpenAI, OpenRouter, Nous or Anthropic (the auto chain's last
// resort), unless config.yaml names the endpoint (auxiliary.vision, or the
// main model's base_url).
func VisionNeed() Need {
	return Need{
		Env:    []string{"OPENAI_API_KEY", "OPENROUTER_API_KEY", "NOUS_API_KEY", "ANTHROPIC_API_KEY"},
		Config: []string{"auxiliary.vision.provider", "auxiliary.vision.base_url", "auxiliary.vision.api_key", "model.base_url"},
	}
}

// kanbanWorker is what a dispatcher worker's kanban tools wait for: the
// dispatcher's HERMES_KANBAN_TASK, unless config.yaml makes the profile an
// orchestrator ("kanban" in toolsets or a platform_toolsets list).
func kanbanWorker() Need {
	return Need{Env: []string{EnvKanbanTask}, Config: []string{"toolsets", "platform_toolsets"}, Dispatcher: true}
}

// kanbanOrchestrator is what the orchestrator-only kanban tools wait for:
// config.yaml alone can give it.
func kanbanOrchestrator() Need {
	return Need{Config: []string{"toolsets", "platform_toolsets"}}
}

// All returns every toolset this build ships, in presentation order (the
// Python Hermes' order: web, browser, vision, image, skills, speech,
// kanban, then the stateful tools it kept in the agent loop, and the
// opt-in extras last). Each call returns a new copy.
//
// Which are on by default, in short: web is on and works with nothing
// configured, through the original's keyless free tier; vision, image and
// speech are on and hide their tools (with the reason in doctor) until a
// backend is configured; the browser is on, since Chromium starts only on
// the first browser call; kanban is on but each tool hides itself unless
// the process is a dispatcher worker or an orchestrator profile, exactly as
// in Hermes (a codex worker whose callback lacks the tools could not report
// back and would hang until the dispatcher timed it out); skills, memory
// and session_search are on (Hermes' own skills, memory and history, which
// only the toolsets give an MCP client); todo is off, as codex, Claude Code
// and most other clients bring a plan tool of their own and a second one
// splits the plan in two; x_search is off, as in Hermes, and hides its tool
// until XAI_API_KEY is set; cronjob is off, as its jobs fire only while
// Hermes' own gateway runs, which an MCP client cannot tell.
func All() []Toolset {
	chromium, vision := ChromiumNeed(), VisionNeed()
	browser := func(name string) Tool { return Tool{Name: name, Needs: []Need{chromium}} }
	worker := func(name string) Tool { return Tool{Name: name, Needs: []Need{kanbanWorker()}} }
	orchestrator := func(name string) Tool { return Tool{Name: name, Needs: []Need{kanbanOrchestrator()}} }
	return []Toolset{
		{
			Name:        Web,
			Description: "Search the web and read pages (HTML, PDF) as Markdown.",
			Default:     true,
			// The keys the backends use, the base URLs the handlers
			// honour (the HERMES_* ones are this build's, for tests and
			// self-hosting), and PARALLEL_SEARCH_MODE and SEARXNG_TIMEOUT.
			EnvVars: []string{
				"TAVILY_API_KEY", "TAVILY_BASE_URL",
				"PERPLEXITY_API_KEY", "PERPLEXITY_BASE_URL",
				"EXA_API_KEY", "EXA_BASE_URL",
				"PARALLEL_API_KEY", "PARALLEL_BASE_URL", "PARALLEL_SEARCH_MODE",
				"KEENABLE_API_KEY",
				"FIRECRAWL_API_KEY", "FIRECRAWL_API_URL",
				"SEARXNG_URL", "SEARXNG_TIMEOUT",
				"BRAVE_SEARCH_API_KEY", "BRAVE_SEARCH_BASE_URL",
				"HERMES_EXA_MCP_URL", "HERMES_PARALLEL_MCP_URL", "HERMES_FIRECRAWL_KEYLESS_URL",
				"HERMES_KEENABLE_URL", "HERMES_DUCKDUCKGO_URL", "HERMES_WIKIPEDIA_URL",
			},
			Tools: []Tool{
				// With nothing configured both search and read through
				// the keyless free tier; web_search is hidden only when
				// config.yaml turns that off (web.keyless_fallback:
				// false) and sets nothing else, which doctor shows.
				{Name: WebSearch},
				// What no provider reads, web_extract fetches itself.
				{Name: WebExtract},
			},
		},
		{
			Name:        Browser,
			Description: "Drive a real headless Chromium: open pages, read them as an accessibility outline with refs, click, type, scroll, go back, switch tabs, answer dialogs, read the console.",
			Default:     true,
			EnvVars:     []string{EnvBrowserCDPURL, EnvChromePath},
			Tools: []Tool{
				browser(BrowserNavigate), browser(BrowserSnapshot), browser(BrowserFind), browser(BrowserClick), browser(BrowserType), browser(BrowserFill),
				browser(BrowserPress), browser(BrowserScroll), browser(BrowserBack), browser(BrowserTabs),
				browser(BrowserDialog), browser(BrowserGetImages), browser(BrowserConsole),
				// browser_vision looks through vision_analyze's model.
				{Name: BrowserVision, Needs: []Need{chromium, vision}},
				// browser_cdp drives an attached browser only, as the
				// original offers it only with a static CDP URL.
				{Name: BrowserCDP, Needs: []Need{CDPNeed()}},
			},
		},
		{
			Name:        Vision,
			Description: "Look at images from URLs, files or data URLs with a vision model (OpenAI-compatible, or Anthropic and Gemini natively).",
			Default:     true,
			EnvVars: []string{
				"OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENROUTER_API_KEY", "NOUS_API_KEY", "AUXILIARY_VISION_MODEL",
				"ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "GEMINI_API_KEY", "GOOGLE_API_KEY", "GEMINI_BASE_URL",
			},
			Tools: []Tool{{Name: VisionAnalyze, Needs: []Need{vision}}},
		},
		{
			Name:        Video,
			Description: "Look at videos from URLs or files with a video-capable model through the vision route (off by default, as in Hermes).",
			Default:     false,
			EnvVars: []string{
				"OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENROUTER_API_KEY", "NOUS_API_KEY", "AUXILIARY_VISION_MODEL",
				"ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "GEMINI_API_KEY", "GOOGLE_API_KEY", "GEMINI_BASE_URL",
			},
			Tools: []Tool{{Name: VideoAnalyze, Needs: []Need{vision}}},
		},
		{
			Name:        VideoGen,
			Description: "Generate videos from text or a still image, and edit or extend generated ones, through xAI Imagine (off by default, as in Hermes; video_gen.provider: xai).",
			Default:     false,
			EnvVars:     []string{"XAI_API_KEY", "XAI_BASE_URL", "HERMES_XAI_BASE_URL"},
			Tools: []Tool{
				{Name: VideoGenerate, Needs: []Need{{Env: []string{"XAI_API_KEY"}}}},
				{Name: XAIVideoEdit, Needs: []Need{{Env: []string{"XAI_API_KEY"}}}},
				{Name: XAIVideoExtend, Needs: []Need{{Env: []string{"XAI_API_KEY"}}}},
			},
		},
		{
			Name:        ImageGen,
			Description: "Generate or edit images from text prompts (OpenAI-compatible images API, FAL's model catalog through its queue, xAI or Krea).",
			Default:     true,
			EnvVars: []string{
				"FAL_KEY", "FAL_IMAGE_MODEL", "FAL_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_IMAGE_MODEL",
				"XAI_API_KEY", "XAI_BASE_URL", "HERMES_XAI_BASE_URL", "XAI_IMAGE_MODEL", "KREA_API_KEY", "KREA_IMAGE_MODEL", "HERMES_KREA_BASE_URL",
			},
			Tools: []Tool{{Name: ImageGenerate, Needs: []Need{{
				Env:    []string{"FAL_KEY", "OPENAI_API_KEY"},
				Config: []string{"image_gen.provider"},
			}}}},
		},
		{
			Name:        Skills,
			Description: "Browse, read and save Hermes skills: reusable task instructions with their reference files.",
			Default:     true,
			// The messaging platform, which selects
			// skills.platform_disabled, and the kanban worker's variables,
			// which decide whether kanban-tagged skills are offered.
			EnvVars: []string{"HERMES_PLATFORM", "HERMES_SESSION_PLATFORM", EnvKanbanTask, "HERMES_KANBAN_BOARD", "HERMES_DELEGATED_CHILD_CONTEXT"},
			Tools:   []Tool{{Name: SkillsList}, {Name: SkillView}, {Name: SkillManage}},
		},
		{
			Name:        TTS,
			Description: "Turn text into speech audio files (Edge TTS without a key, espeak-ng offline, OpenAI, ElevenLabs, MiniMax, Mistral, Gemini, xAI, or your own program).",
			Default:     true,
			EnvVars: []string{
				"OPENAI_API_KEY", "OPENAI_BASE_URL", "ELEVENLABS_API_KEY", "ELEVENLABS_BASE_URL", "HERMES_EDGE_TTS_URL",
				"MINIMAX_API_KEY", "MINIMAX_CN_API_KEY", "MINIMAX_GROUP_ID", "HERMES_MINIMAX_TTS_URL", "MISTRAL_API_KEY",
				"HERMES_MISTRAL_BASE_URL", "GEMINI_API_KEY", "GOOGLE_API_KEY", "GEMINI_BASE_URL", "XAI_API_KEY", "XAI_BASE_URL",
			},
			// The default provider, Edge TTS, needs no key and no
			// program; tts.provider picks another and its check says
			// what that one lacks.
			Tools: []Tool{{Name: TextToSpeech}},
		},
		{
			Name:        Kanban,
			Description: "Work the Hermes kanban board: report back from a dispatched task, or route work as an orchestrator.",
			Default:     true,
			// The dispatcher sets the HERMES_KANBAN_* task variables in a
			// worker's environment; the checks read only
			// HERMES_KANBAN_TASK, the handlers the rest.
			EnvVars: []string{
				EnvKanbanTask, "HERMES_KANBAN_RUN_ID", "HERMES_KANBAN_CLAIM_LOCK", "HERMES_KANBAN_CLAIM_TTL_SECONDS",
				"HERMES_KANBAN_DB", "HERMES_KANBAN_BOARD", "HERMES_KANBAN_HOME",
				"HERMES_PROFILE", "HERMES_TENANT", EnvSessionID, "HERMES_DELEGATED_CHILD_CONTEXT",
				"HERMES_KANBAN_ATTACHMENTS_ROOT", "HERMES_ALLOW_PRIVATE_URLS",
			},
			// kanban_list and kanban_unblock are orchestrator-only; the
			// rest are also a dispatcher worker's.
			Tools: []Tool{
				worker(KanbanShow), orchestrator(KanbanList), worker(KanbanComplete), worker(KanbanBlock),
				worker(KanbanHeartbeat), worker(KanbanComment), worker(KanbanAttach), worker(KanbanAttachURL),
				worker(KanbanAttachments), worker(KanbanCreate), orchestrator(KanbanUnblock), worker(KanbanLink),
				worker(KanbanRequestReview), worker(KanbanRequestChanges),
			},
		},
		{
			Name:        Memory,
			Description: "Keep durable notes about the environment and the user in Hermes' memory files, shared with every Hermes session.",
			Default:     true,
			Tools:       []Tool{{Name: MemoryTool}},
		},
		{
			Name:        SessionSearch,
			Description: "Search and read past Hermes conversations from state.db.",
			Default:     true,
			EnvVars:     []string{EnvSessionID},
			Tools:       []Tool{{Name: SessionSearchTool}},
		},
		{
			Name:        Todo,
			Description: "A task list for the current session; a named session's list survives server restarts.",
			Default:     false,
			EnvVars:     []string{EnvSessionID},
			Tools:       []Tool{{Name: TodoTool}},
		},
		{
			Name:        XSearch,
			Description: "Search X (Twitter) posts, profiles and threads through xAI's built-in X Search (read-only).",
			Default:     false,
			EnvVars:     []string{"XAI_API_KEY", "XAI_BASE_URL"},
			Tools:       []Tool{{Name: XSearchTool, Needs: []Need{{Env: []string{"XAI_API_KEY"}}}}},
		},
		{
			Name:        Cron,
			Description: "Create, list, update, pause, resume and remove Hermes' scheduled jobs (cron/jobs.json); Hermes' gateway runs them.",
			Default:     false,
			Tools:       []Tool{{Name: CronTool}},
		},
	}
}

// Get returns the toolset named name: the zero Toolset when this build has
// none, which the registry refuses, since a toolset must have a name.
func Get(name string) Toolset {
	for _, ts := range All() {
		if ts.Name == name {
			return ts
		}
	}
	return Toolset{}
}

// EnvVarNames returns, sorted and without duplicates, every environment
// variable the shipped toolsets read.
func EnvVarNames() []string {
	var out []string
	for _, ts := range All() {
		out = append(out, ts.EnvVars...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Reserved --toolsets names.
const (
	SelectAll     = "all"
	SelectDefault = "default"
)

// Select applies a selection to toolsets (their names, defaults and tool
// names are what it reads): the toolsets it turns on, in the order they
// were asked for, with "all" and "default" expanded and an empty list
// meaning the defaults; and the tools it excludes. An unknown toolset or
// tool name is an error that lists the valid names, so a typo never
// silently disables a tool. The server's registry and hermes-migrate both
// select with it.
func Select(toolsets []Toolset, names, exclude []string) (on []string, excluded map[string]bool, err error) {
	add := func(n string) {
		if !slices.Contains(on, n) {
			on = append(on, n)
		}
	}
	addDefault := func() {
		for _, ts := range toolsets {
			if ts.Default {
				add(ts.Name)
			}
		}
	}
	if len(names) == 0 {
		addDefault()
	}
	for _, n := range names {
		n = strings.TrimSpace(n)
		switch {
		case n == "":
		case n == SelectAll:
			for _, ts := range toolsets {
				add(ts.Name)
			}
		case n == SelectDefault:
			addDefault()
		case slices.ContainsFunc(toolsets, func(ts Toolset) bool { return ts.Name == n }):
			add(n)
		default:
			var known []string
			for _, ts := range toolsets {
				known = append(known, ts.Name)
			}
			hint := didyoumean.Hint(n, append(known, SelectAll, SelectDefault))
			if hint != "" {
				hint = "; " + hint
			}
			return nil, nil, fmt.Errorf("unknown toolset %q%s (known: %s, or %q, %q)",
				n, hint, strings.Join(known, ", "), SelectAll, SelectDefault)
		}
	}
	var tools []string
	for _, ts := range toolsets {
		for _, tl := range ts.Tools {
			tools = append(tools, tl.Name)
		}
	}
	excluded = map[string]bool{}
	for _, name := range exclude {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if !slices.Contains(tools, name) {
			hint := didyoumean.Hint(name, tools)
			if hint != "" {
				hint = "; " + hint
			}
			return nil, nil, fmt.Errorf("unknown tool %q%s (known tools: %s)", name, hint, strings.Join(tools, ", "))
		}
		excluded[name] = true
	}
	return on, excluded, nil
}
