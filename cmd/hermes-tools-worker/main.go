// Command hermes-tools-worker runs the heavy Hermes toolsets (web, browser,
// vision, image generation, speech, and the SQLite-backed kanban,
// session_search and todo) for hermes-tools-mcp, which starts it on
// the first call to one of those tools and forwards calls to it over stdio
// (MCP). Keeping their libraries out of hermes-tools-mcp keeps the server
// MCP clients spawn fast and small. Install it beside hermes-tools-mcp.
//
// Usage (hermes-tools-mcp passes these; running it by hand serves MCP on
// stdin/stdout like any MCP server, with only these toolsets):
//
//	hermes-tools-worker [--hermes-home DIR] [--browser-path PATH] [--log-level LEVEL]
//
// Exit codes: 0 stdin closed or interrupted; 1 failure while serving; 2 bad
// flags or configuration.
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
	"syscall"

	"github.com/hermes-go/hermes/internal/buildinfo"
	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/internal/protostdio"
	"github.com/hermes-go/hermes/mcpserver"
	"github.com/hermes-go/hermes/mcpserver/browser"
	"github.com/hermes-go/hermes/mcpserver/kanban"
	"github.com/hermes-go/hermes/mcpserver/media"
	"github.com/hermes-go/hermes/mcpserver/sessions"
	"github.com/hermes-go/hermes/mcpserver/todo"
	"github.com/hermes-go/hermes/mcpserver/tooldef"
	"github.com/hermes-go/hermes/mcpserver/web"
)

var version = ""

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hermes-tools-worker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	hermesHome := fs.String("hermes-home", "", "Hermes home directory (default: $HERMES_HOME, else ~/.hermes)")
	browserPath := fs.String("browser-path", "", "Chromium binary for the browser tools (default: $CHROME_PATH, else discovery)")
	logLevel := fs.String("log-level", "warn", "stderr log level: debug, info, warn or error")
	showVersion := fs.Bool("version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *showVersion {
		fmt.Fprintf(stdout, "hermes-tools-worker %s\n", buildinfo.Version(version))
		return 0
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fmt.Fprintf(stderr, "hermes-tools-worker: --log-level %q: want debug, info, warn or error\n", *logLevel)
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})).With("process", "hermes-tools-worker")
	home, err := hermeshome.Resolve(*hermesHome, nil)
	if err != nil {
		fmt.Fprintf(stderr, "hermes-tools-worker: %v\n", err)
		return 2
	}

	toolsets, closeTools := heavyToolsets(home, *browserPath, log)
	defer func() {
		if err := closeTools(); err != nil {
			log.Error("closing tools", "err", err)
		}
	}()
	if _, err := mcpserver.NewRegistry(toolsets...); err != nil {
		fmt.Fprintf(stderr, "hermes-tools-worker: tool registry: %v\n", err)
		return 2
	}
	// Every tool is served, whatever its availability check says: the front
	// process decided what to expose, and a call that reaches a tool whose
	// backend went away since gets that tool's own explanation, as it would
	// in one process.
	plan := mcpserver.EveryTool(toolsets...)
	if f, ok := stdin.(*os.File); ok && f == os.Stdin {
		stdin = protostdio.Stdin()
	}
	out := stdout
	if f, ok := stdout.(*os.File); ok && f == os.Stdout {
		if out, err = protostdio.Reserve(); err != nil {
			fmt.Fprintf(stderr, "hermes-tools-worker: %v\n", err)
			return 1
		}
	}
	srv := mcpserver.New(mcpserver.Options{Version: buildinfo.Version(version), Plan: plan, Logger: log})
	err = srv.ServeStdio(ctx, stdin, out)
	if err != nil && !errors.Is(err, context.Canceled) {
		log.Error("server stopped", "err", err)
		return 1
	}
	return 0
}

// heavyToolsets builds the toolsets hermes-tools-mcp forwards here, with
// the same options it declares them with, and returns the function that
// releases them (the browser).
func heavyToolsets(home, browserPath string, log *slog.Logger) ([]tooldef.Toolset, func() error) {
	mo := media.Options{Home: home}
	bo := browser.Options{Home: home, ExecPath: browserPath, Logger: log}
	// browser_vision shares vision_analyze's model; without one it is
	// hidden with the same reason.
	if err := media.NewVision(mo).Check(); err != nil {
		bo.VisionUnavailable = err.Error()
	} else {
		bo.Vision = media.VisionFunc(mo)
	}
	br := browser.New(bo)
	return []tooldef.Toolset{
		web.Toolset(web.Options{Home: home}),
		br.Toolset(),
		media.VisionToolset(mo),
		media.ImageToolset(mo),
		media.TTSToolset(mo),
		kanban.Toolset(kanban.Options{Home: home}),
		sessions.Toolset(sessions.Options{Home: home}),
		todo.Toolset(todo.Options{Home: home}),
	}, br.Close
}
