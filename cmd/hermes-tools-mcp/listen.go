package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"

	"github.com/hermes-go/hermes/mcpserver"
	"github.com/hermes-go/hermes/mcpserver/httpmcp"
	"github.com/hermes-go/hermes/toolsets/browser"
	"github.com/hermes-go/hermes/toolsets/memory"

	"github.com/hermes-go/hermes/internal/safefile"
)

// TokenEnv holds the bearer token of the HTTP transport when --token-file
// is not given.
const TokenEnv = "HERMES_MCP_TOKEN"

// shutdownGrace bounds how long calls in flight may finish after SIGTERM
// before they are cancelled.
const shutdownGrace = 10 * time.Second

// answerWait is how long after the grace the connections stay open for the
// answers of the calls cancelled then (the handler gives those 2 s).
const answerWait = 3 * time.Second

// httpLimits of the listener itself; the handler bounds bodies and writes.
const (
	readHeaderTimeout = 10 * time.Second
	idleConnTimeout   = 2 * time.Minute
	maxHeaderBytes    = 64 << 10
)

// serveHTTP serves MCP over Streamable HTTP until ctx is done, then shuts
// down gracefully.
func serveHTTP(ctx context.Context, opts options, setup setup, log *slog.Logger, stderr io.Writer) int {
	if err := checkListenAddr(opts.listen); err != nil {
		fmt.Fprintf(stderr, "hermes-tools-mcp: %v\n", err)
		return exitUsage
	}
	token, err := readToken(opts.tokenFile, setup.env.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "hermes-tools-mcp: %v\n", err)
		return exitUsage
	}
	// Refused before listening: a tokenless server must never be
	// reachable from another machine, not even for a moment.
	if token == "" && !loopbackAddr(opts.listen) {
		fmt.Fprintf(stderr, "hermes-tools-mcp: --listen %s is reachable from other machines, so a token is required: set %s or pass --token-file (or listen on 127.0.0.1)\n", opts.listen, TokenEnv)
		return exitUsage
	}
	ln, err := net.Listen("tcp", opts.listen)
	if err != nil {
		fmt.Fprintf(stderr, "hermes-tools-mcp: %s\n", listenError(opts.listen, err))
		return exitUsage
	}
	for _, n := range setup.startNotes {
		log.Log(ctx, n.level, n.msg)
	}
	loopback := isLoopback(ln.Addr())
	if token == "" {
		log.Warn("serving without a token: any local process can call the tools; set " + TokenEnv + " or --token-file to require one")
	}
	if !loopback {
		log.Warn("serving plain HTTP off loopback: the bearer token and every call cross the network unencrypted, readable by anyone on the path; put a TLS reverse proxy in front and listen on 127.0.0.1 (README: Remote clients)", "addr", ln.Addr().String())
		if len(opts.allowHosts) > 0 {
			log.Warn("--allow-host has no effect off loopback: the Host check guards loopback listeners only")
		}
	}
	srv := mcpserver.New(mcpserver.Options{
		Version: buildVersion(), Plan: setup.plan, Logger: log, Skills: setup.skills,
		MemorySnapshot: func() (string, error) { return memory.Snapshot(setup.home, setup.configPath) },
	})
	h := srv.HTTPHandler(httpmcp.Options{
		Token: token, Loopback: loopback, Logger: log,
		AllowedOrigins: opts.allowOrigins, AllowedHosts: opts.allowHosts,
	})
	hs := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		IdleTimeout:       idleConnTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		// No WriteTimeout: it would cut every SSE stream; the handler sets
		// a deadline per write instead.
	}
	// The address goes to stderr at every log level: with --listen
	// 127.0.0.1:0 it is how a caller learns the port.
	fmt.Fprintf(stderr, "hermes-tools-mcp: serving MCP on http://%s%s (hermes home %s, %d tools)\n", ln.Addr(), httpmcp.Endpoint, setup.home, len(setup.plan.Enabled()))
	serveErr := make(chan error, 1)
	go func() { serveErr <- hs.Serve(ln) }()
	select {
	case err := <-serveErr:
		log.Error("HTTP server stopped", "err", err)
		h.Shutdown(context.Background())
		return exitFailure
	case <-ctx.Done():
	}
	log.Info("shutting down: calls in flight may finish", "grace", shutdownGrace)
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	// The connections get longer than the calls: a call cancelled at the
	// grace's end is answered with the reason, and that answer must reach
	// the client before its connection is closed. http.Server.Shutdown
	// returns once every response is written; what is still open after
	// answerWait more (a stream blocked on a client that does not read)
	// is closed.
	hctx, hcancel := context.WithTimeout(context.Background(), shutdownGrace+answerWait)
	defer hcancel()
	httpDone := make(chan error, 1)
	go func() { httpDone <- hs.Shutdown(hctx) }()
	if err := h.Shutdown(sctx); err != nil {
		log.Warn("shutdown", "err", err)
	}
	if err := <-httpDone; err != nil {
		log.Warn("HTTP shutdown", "err", err)
		hs.Close()
	}
	if err := <-serveErr; err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Warn("HTTP server", "err", err)
	}
	return exitOK
}

// readToken returns the token from file, else from the environment. Both
// sources follow one rule (checkToken); an unset variable means no token.
func readToken(file string, getenv func(string) string) (string, error) {
	if file == "" {
		raw := getenv(TokenEnv)
		if raw == "" {
			return "", nil
		}
		return checkToken(raw, "$"+TokenEnv, "set it to the token, or unset it to serve without one (loopback only)")
	}
	b, err := safefile.ReadUserFile(file, 64<<10)
	if err != nil {
		return "", fmt.Errorf("--token-file: %w", err)
	}
	return checkToken(string(b), "--token-file "+file, "put the token in it, or drop the flag")
}

// checkToken trims the whitespace around a token (a file's final newline)
// and refuses a blank one, which would silently turn the token off, and
// one with whitespace or control characters inside, which no client can
// send in an Authorization header as one bearer token.
func checkToken(raw, source, fix string) (string, error) {
	tok := strings.TrimSpace(raw)
	if tok == "" {
		return "", fmt.Errorf("%s is empty (blank); %s", source, fix)
	}
	if i := strings.IndexFunc(tok, func(r rune) bool { return r <= ' ' || r == 0x7f || unicode.IsSpace(r) }); i >= 0 {
		return "", fmt.Errorf("%s holds more than one word (a space, line break or control character at byte %d); a bearer token is one word of printable characters", source, i)
	}
	return tok, nil
}

// checkListenAddr refuses a --listen address without a port with the fix,
// rather than letting it read as a non-loopback host later.
func checkListenAddr(addr string) error {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		bare := strings.TrimSuffix(strings.TrimPrefix(addr, "["), "]")
		if ip := net.ParseIP(bare); ip != nil || !strings.Contains(addr, ":") {
			host := addr
			if ip != nil && ip.To4() == nil {
				host = "[" + ip.String() + "]"
			}
			return fmt.Errorf("--listen %s: missing port; use %s:8787", addr, host)
		}
		return fmt.Errorf("--listen %s: %v (want HOST:PORT, e.g. 127.0.0.1:8787)", addr, err)
	}
	_, port, _ := net.SplitHostPort(addr)
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("--listen %s: %s is not a port number (0-65535); e.g. 127.0.0.1:8787", addr, port)
	}
	return nil
}

// startNote is a line for the start-up log that only holds once the
// listener is up: said earlier, it would announce a server that a missing
// token or a bad address then refuses to start.
type startNote struct {
	level slog.Level
	msg   string
}

// browserPrivateURLs is the browser's private-URL setting for this run.
// Off loopback a token holder on another machine drives the browser, and
// must not reach this host's loopback or private network through it, so
// the default (allowed) becomes refused; an explicit true in config.yaml
// is the operator's choice and is kept, with a warning.
func browserPrivateURLs(opts options, home string) (*bool, []startNote, error) {
	if opts.command != "serve" || opts.listen == "" || loopbackAddr(opts.listen) {
		return nil, nil, nil
	}
	cfg, err := browser.ReadConfig(home)
	if err != nil {
		return nil, nil, fmt.Errorf("browser settings: %w", err)
	}
	switch {
	case cfg.AllowPrivateURLs == nil:
		refuse := false
		return &refuse, []startNote{{slog.LevelInfo, "serving off loopback: the browser refuses loopback and private-network URLs (set browser.allow_private_urls: true in config.yaml to allow them)"}}, nil
	case *cfg.AllowPrivateURLs:
		return nil, []startNote{{slog.LevelWarn, "browser.allow_private_urls is true in config.yaml while serving off loopback: any token holder can drive this host's browser into its loopback and private network"}}, nil
	}
	return nil, nil, nil
}

// listenError says why the listener could not be opened, with the fix for
// the causes a user meets: a port in use, a privileged port.
func listenError(addr string, err error) string {
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return fmt.Sprintf("--listen %s: the port is already in use (another hermes-tools-mcp, or another server); stop that one or pick a free port, e.g. --listen 127.0.0.1:8788", addr)
	case errors.Is(err, syscall.EACCES):
		return fmt.Sprintf("--listen %s: not allowed to listen there (ports below 1024 need privileges); pick a port above 1023, e.g. --listen 127.0.0.1:8787", addr)
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return fmt.Sprintf("--listen %s: no network interface of this machine has that address; use 127.0.0.1, or 0.0.0.0 for every interface", addr)
	}
	return fmt.Sprintf("--listen %s: cannot listen: %v", addr, err)
}

// listFlag is a repeatable flag whose values may also be comma-separated.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	*l = append(*l, splitList(v)...)
	return nil
}

// checkAllowed refuses --allow-origin and --allow-host values that could
// never match a request header, naming the form that would.
func checkAllowed(origins, hosts []string) error {
	for _, o := range origins {
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
			(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
			return fmt.Errorf("--allow-origin %q: want an origin, scheme://host[:port], e.g. https://app.example", o)
		}
		if u.Path == "/" || o != strings.ToLower(o) {
			return fmt.Errorf("--allow-origin %q: use %s://%s (browsers send an origin in lower case, without a path)", o, strings.ToLower(u.Scheme), strings.ToLower(u.Host))
		}
	}
	for _, h := range hosts {
		if strings.ContainsAny(h, "/@ ") || strings.Contains(h, "://") {
			return fmt.Errorf("--allow-host %q: want a host name, optionally with a port, e.g. mcp.example.com", h)
		}
	}
	return nil
}

// loopbackAddr reports whether a --listen address can only be on
// loopback: a loopback IP, or localhost (which may resolve to both
// 127.0.0.1 and ::1, both loopback). An empty host means every interface.
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func isLoopback(addr net.Addr) bool {
	ta, ok := addr.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}
