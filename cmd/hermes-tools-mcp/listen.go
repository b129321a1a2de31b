package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/hermes-go/hermes/mcpserver"
	"github.com/hermes-go/hermes/mcpserver/httpmcp"
	"github.com/hermes-go/hermes/mcpserver/memory"
)

// TokenEnv holds the bearer token of the HTTP transport when --token-file
// is not given.
const TokenEnv = "HERMES_MCP_TOKEN"

// shutdownGrace bounds how long calls in flight may finish after SIGTERM
// before they are cancelled.
const shutdownGrace = 10 * time.Second

// httpLimits of the listener itself; the handler bounds bodies and writes.
const (
	readHeaderTimeout = 10 * time.Second
	idleConnTimeout   = 2 * time.Minute
	maxHeaderBytes    = 64 << 10
)

// serveHTTP serves MCP over Streamable HTTP until ctx is done, then shuts
// down gracefully.
func serveHTTP(ctx context.Context, opts options, setup setup, log *slog.Logger, stderr io.Writer) int {
	token, err := readToken(opts.tokenFile, os.Getenv)
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
		fmt.Fprintf(stderr, "hermes-tools-mcp: --listen %s: %v (want HOST:PORT, e.g. 127.0.0.1:8787)\n", opts.listen, err)
		return exitUsage
	}
	loopback := isLoopback(ln.Addr())
	if token == "" {
		log.Warn("serving without a token: any local process can call the tools; set " + TokenEnv + " or --token-file to require one")
	}
	srv := mcpserver.New(mcpserver.Options{
		Version: buildVersion(), Plan: setup.plan, Logger: log, Skills: setup.skills,
		MemorySnapshot: func() (string, error) { return memory.Snapshot(setup.home, setup.configPath) },
	})
	h := srv.HTTPHandler(httpmcp.Options{Token: token, Loopback: loopback, Logger: log})
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
	httpDone := make(chan error, 1)
	go func() { httpDone <- hs.Shutdown(sctx) }()
	if err := h.Shutdown(sctx); err != nil {
		log.Warn("shutdown", "err", err)
		hs.Close() // a stream blocked on a client that does not read
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

// readToken returns the token from file, else from the environment; a
// file that is given must hold one.
func readToken(file string, getenv func(string) string) (string, error) {
	if file == "" {
		return strings.TrimSpace(getenv(TokenEnv)), nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("--token-file: %w", err)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", fmt.Errorf("--token-file %s is empty; put the token in it, or drop the flag", file)
	}
	if strings.ContainsAny(tok, " \t\r\n") {
		return "", fmt.Errorf("--token-file %s holds more than one word; a bearer token has no spaces or line breaks", file)
	}
	return tok, nil
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
