// Command hermes-tools-mcp serves the Hermes agent's tools to any MCP client
// over stdio, or over Streamable HTTP with --listen.
//
// Usage:
//
//	hermes-tools-mcp [flags]                  serve MCP on stdin/stdout
//	hermes-tools-mcp --listen ADDR [flags]    serve MCP over HTTP at http://ADDR/mcp
//	hermes-tools-mcp doctor [flags]           list every tool: exposed, or hidden and why
//
// Exit codes: 0 the client closed stdin or the server was interrupted;
// 1 the server failed while running (e.g. stdout closed); 2 bad flags or
// configuration (the message on stderr says what to fix).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/hermes-go/hermes/internal/buildinfo"
	"github.com/hermes-go/hermes/internal/cliflag"
	"github.com/hermes-go/hermes/internal/hermesenv"
	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/internal/protostdio"
	"github.com/hermes-go/hermes/mcpserver"
	"github.com/hermes-go/hermes/toolsets"
	"github.com/hermes-go/hermes/toolsets/memory"
	"github.com/hermes-go/hermes/toolsets/skills"
)

// version is set at release time with -ldflags "-X main.version=...".
var version = ""

const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// options are the parsed command line.
type options struct {
	command      string // "serve" or "doctor"
	toolsets     string
	excludeTools string
	hermesHome   string
	profile      hermeshome.ProfileFlag
	logLevel     string
	browserPath  string
	showVersion  bool
	jsonOut      bool
	listen       string
	tokenFile    string
	allowOrigins listFlag
	allowHosts   listFlag
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	opts, err := parseArgs(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "hermes-tools-mcp: %v\n", err)
		return exitUsage
	}
	if opts.showVersion {
		fmt.Fprintf(stdout, "hermes-tools-mcp %s\n", buildVersion())
		return exitOK
	}
	level, err := parseLevel(opts.logLevel)
	if err != nil {
		fmt.Fprintf(stderr, "hermes-tools-mcp: %v\n", err)
		return exitUsage
	}
	// Logs go to stderr only: stdout is the protocol.
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	setup, err := configure(opts, log, os.Environ())
	defer func() {
		if err := setup.toolbox.Close(); err != nil {
			fmt.Fprintf(stderr, "hermes-tools-mcp: closing tools: %v\n", err)
		}
	}()
	if err != nil {
		fmt.Fprintf(stderr, "hermes-tools-mcp: %v\n", err)
		return exitUsage
	}
	if opts.command == "doctor" {
		if err := writeDoctor(context.Background(), stdout, setup, opts.jsonOut); err != nil {
			fmt.Fprintf(stderr, "hermes-tools-mcp: %v\n", err)
			return exitFailure
		}
		return exitOK
	}

	if opts.listen != "" {
		return serveHTTP(ctx, opts, setup, log, stderr)
	}
	if isTerminal(stdin) {
		// A person ran it by hand: without a word it looks hung.
		fmt.Fprintf(stderr, "hermes-tools-mcp: serving MCP on stdin/stdout for an MCP client, which starts it itself; nothing shows here until a client speaks (Ctrl+D ends it).\n"+
			"  hermes-migrate --client <name>   registers it with a client (hermes-migrate list shows yours)\n"+
			"  hermes-tools-mcp doctor          lists the tools and why any are hidden\n"+
			"  hermes-tools-mcp --listen 127.0.0.1:8787   serves Streamable HTTP instead\n")
	}
	if f, ok := stdin.(*os.File); ok && f == os.Stdin {
		stdin = protostdio.Stdin()
	}
	out := stdout
	if f, ok := stdout.(*os.File); ok && f == os.Stdout {
		if out, err = protostdio.Reserve(); err != nil {
			fmt.Fprintf(stderr, "hermes-tools-mcp: %v\n", err)
			return exitFailure
		}
	}
	srv := mcpserver.New(mcpserver.Options{
		Version: buildVersion(), Plan: setup.plan, Logger: log, Skills: setup.skills,
		MemorySnapshot: func() (string, error) { return memory.Snapshot(setup.home, setup.configPath) },
	})
	log.Info("serving on stdio", "hermes_home", setup.home, "tools", len(setup.plan.Enabled()))
	err = srv.ServeStdio(ctx, stdin, out)
	switch {
	case err == nil, errors.Is(err, context.Canceled):
		return exitOK
	default:
		log.Error("server stopped", "err", err)
		return exitFailure
	}
}

func parseArgs(args []string, stderr io.Writer) (options, error) {
	opts := options{command: "serve"}
	commandGiven := len(args) > 0 && !strings.HasPrefix(args[0], "-")
	if commandGiven {
		switch args[0] {
		case "doctor", "tools":
			opts.command = "doctor"
		case "serve":
		default:
			return opts, fmt.Errorf("unknown command %q (commands: serve, doctor; run with -h for help)", args[0])
		}
		args = args[1:]
	}
	fs := flag.NewFlagSet("hermes-tools-mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&opts.toolsets, "toolsets", "", `comma-separated toolsets to expose, or "all" or "default" (default: hermes_tools.toolsets in config.yaml, else "default")`)
	fs.StringVar(&opts.excludeTools, "exclude-tools", "", "comma-separated tool names to hide")
	fs.StringVar(&opts.hermesHome, "hermes-home", "", "Hermes home directory (default: $HERMES_HOME, else ~/.hermes)")
	fs.StringVar(&opts.logLevel, "log-level", "warn", "stderr log level: debug, info, warn or error (with --listen the default is info, which logs each request)")
	fs.StringVar(&opts.browserPath, "browser-path", "", "Chromium binary for the browser tools (default: $CHROME_PATH, else Debian's chromium on PATH)")
	fs.BoolVar(&opts.showVersion, "version", false, "print the version and exit")
	fs.BoolVar(&opts.jsonOut, "json", false, "doctor: print JSON instead of a table")
	fs.StringVar(&opts.listen, "listen", "", "serve MCP over Streamable HTTP on this address (e.g. 127.0.0.1:8787) at /mcp instead of stdio")
	fs.Var(&opts.allowOrigins, "allow-origin", "--listen: an Origin (scheme://host[:port]) whose web pages may call the server, e.g. https://app.example; repeat or comma-separate")
	fs.Var(&opts.allowHosts, "allow-host", "--listen: a Host name the server answers besides localhost on a loopback listener: the public name a TLS reverse proxy forwards, e.g. mcp.example.com; repeat or comma-separate")
	fs.StringVar(&opts.tokenFile, "token-file", "", "--listen: file holding the bearer token clients must send (default: $HERMES_MCP_TOKEN); required unless the address is loopback")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `hermes-tools-mcp serves the Hermes agent's tools to MCP clients over stdio or Streamable HTTP.

Usage:
  hermes-tools-mcp [flags]                  serve MCP on stdin/stdout
  hermes-tools-mcp --listen ADDR [flags]    serve MCP over HTTP at http://ADDR/mcp (SIGTERM stops it gracefully)
  hermes-tools-mcp doctor [flags]           list every tool: exposed, or hidden and why

Flags:
`)
		fs.PrintDefaults()
		fmt.Fprint(fs.Output(), `
  -p, --profile NAME
    	serve the Hermes profile NAME (~/.hermes/profiles/NAME; "default" is the main home), as the
    	Python Hermes' -p does; without it, the profile named in ~/.hermes/active_profile, if any

Exit codes: 0 stdin closed or interrupted; 1 failure while serving; 2 bad flags or configuration.
`)
	}
	var err error
	if opts.profile, args, err = hermeshome.TakeProfileFlag(args, hermeshome.FlagTakesValue(fs)); err != nil {
		return opts, err
	}
	if err := cliflag.Parse(fs, args); err != nil {
		return opts, err
	}
	// The command may also follow the flags (doctor --json, --json doctor).
	if fs.NArg() > 0 && !commandGiven && (fs.Arg(0) == "doctor" || fs.Arg(0) == "tools" || fs.Arg(0) == "serve") {
		opts.command = map[string]string{"tools": "doctor"}[fs.Arg(0)]
		if opts.command == "" {
			opts.command = fs.Arg(0)
		}
		if err := cliflag.Parse(fs, fs.Args()[1:]); err != nil {
			return opts, err
		}
	}
	// Over HTTP the access log (Info) is how an operator sees traffic, so
	// it is on unless a level was chosen; on stdio, warnings only.
	levelSet := false
	fs.Visit(func(f *flag.Flag) { levelSet = levelSet || f.Name == "log-level" })
	if opts.listen != "" && !levelSet {
		opts.logLevel = "info"
	}
	if opts.listen == "" && (len(opts.allowOrigins) > 0 || len(opts.allowHosts) > 0) {
		return opts, errors.New("--allow-origin and --allow-host apply to --listen only; add --listen HOST:PORT")
	}
	if err := checkAllowed(opts.allowOrigins, opts.allowHosts); err != nil {
		return opts, err
	}
	if fs.NArg() > 0 {
		return opts, fmt.Errorf("unexpected argument %q: hermes-tools-mcp takes a command (serve or doctor) and flags; run hermes-tools-mcp -h for help", fs.Arg(0))
	}
	return opts, nil
}

func parseLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return l, fmt.Errorf("--log-level %q: want debug, info, warn or error", s)
	}
	return l, nil
}

// setup is the resolved configuration of one run.
type setup struct {
	home       string
	selection  hermeshome.Selection
	env        *hermesenv.Env
	configPath string
	toolsets   toolsets.Selection
	source     string // where the toolset selection came from
	plan       toolsets.Plan
	skills     *skills.Library
	// toolbox owns the tools' resources (a browser); closed at exit.
	toolbox *toolsets.Toolbox
	// configWarnings are config.yaml's unknown or misspelt keys.
	configWarnings []string
	// startNotes are logged once the HTTP listener is up.
	startNotes []startNote
}

// configure resolves the home (profile included) and its environment
// (the home's .env over environ), then builds the tools from them.
func configure(opts options, log *slog.Logger, environ []string) (setup, error) {
	var s setup
	sel, err := hermeshome.Select(opts.hermesHome, opts.profile, lookupIn(environ))
	if err != nil {
		return s, err
	}
	home := sel.Home
	s.home, s.selection = home, sel
	s.env = hermesenv.Load(home, environ)
	s.env.Set(hermeshome.EnvVar, home)
	for _, n := range append(sel.Notes, s.env.Notes...) {
		log.Warn(n)
	}
	s.configPath = home + string(os.PathSeparator) + hermeshome.ConfigFile
	cfg, err := hermeshome.LoadConfig(home)
	if err != nil {
		return s, err
	}
	if chk, err := hermeshome.CheckConfig(home); err == nil {
		for _, w := range chk.Warnings {
			s.configWarnings = append(s.configWarnings, w.String())
			if opts.command != "doctor" { // doctor shows them in its report
				log.Warn(s.configPath + ": " + w.String())
			}
		}
	}
	s.toolsets = toolsets.Selection{
		Toolsets:     cfg.HermesTools.Toolsets,
		ExcludeTools: cfg.HermesTools.ExcludeTools,
	}
	s.source = "config.yaml hermes_tools.toolsets"
	if len(s.toolsets.Toolsets) == 0 {
		s.source = "default"
	}
	if opts.toolsets != "" {
		s.toolsets.Toolsets = splitList(opts.toolsets)
		s.source = "--toolsets"
	}
	if opts.excludeTools != "" {
		s.toolsets.ExcludeTools = append(s.toolsets.ExcludeTools, splitList(opts.excludeTools)...)
	}
	env := toolsets.Env{Home: home, Config: cfg, Getenv: s.env.Getenv, LookupEnv: s.env.LookupEnv, BrowserPath: opts.browserPath, Logger: log}
	if env.BrowserAllowPrivateURLs, s.startNotes, err = browserPrivateURLs(opts, home); err != nil {
		return s, err
	}
	// One skills library for the skills toolset and the skills extension.
	if env.Skills, err = toolsets.NewSkillsLibrary(env); err != nil {
		return s, fmt.Errorf("%s: %w", s.configPath, err)
	}
	s.skills = env.Skills
	box, err := toolsets.Builtin(env)
	if err != nil {
		return s, fmt.Errorf("%s: %w", s.configPath, err)
	}
	s.toolbox = box
	reg, err := toolsets.NewRegistry(box.Toolsets...)
	if err != nil {
		return s, fmt.Errorf("tool registry: %w", err)
	}
	s.plan, err = reg.Resolve(s.toolsets)
	if err != nil {
		return s, fmt.Errorf("%s (set by %s; `hermes-tools-mcp doctor --toolsets all` lists every tool)", err, blame(reg, s, cfg.HermesTools.ExcludeTools))
	}
	return s, nil
}

// blame names the setting a failed selection came from: the toolsets,
// else the excluded tools in config.yaml, else --exclude-tools. Resolving
// again is cheap and happens only on this error path.
func blame(reg *toolsets.Registry, s setup, cfgExclude []string) string {
	if _, err := reg.Resolve(toolsets.Selection{Toolsets: s.toolsets.Toolsets}); err != nil {
		return s.source
	}
	if _, err := reg.Resolve(toolsets.Selection{Toolsets: s.toolsets.Toolsets, ExcludeTools: cfgExclude}); err != nil {
		return "config.yaml hermes_tools.exclude_tools"
	}
	return "--exclude-tools"
}

// lookupIn is getenv over an environ list.
func lookupIn(environ []string) func(string) string {
	return func(k string) string {
		for _, kv := range environ {
			if name, v, ok := strings.Cut(kv, "="); ok && name == k {
				return v
			}
		}
		return ""
	}
}

func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

func buildVersion() string { return buildinfo.Version(version) }

// isTerminal reports a character device on stdin: a person at a terminal
// rather than a client's pipe. (/dev/null counts too; the note then goes
// to stderr of a run that reads nothing, which harms no one.)
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
