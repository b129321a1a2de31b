// Command baseline is the benchmark's yardstick: the smallest mcp-go
// server, one echo tool on the stock transport. Without flags it serves
// stdio (server.ServeStdio); with --listen ADDR it serves Streamable HTTP
// at http://ADDR/mcp through mcp-go's own StreamableHTTPServer, and names
// the address on stderr as hermes-tools-mcp does, so one client drives
// both.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func main() {
	listen := flag.String("listen", "", "serve Streamable HTTP on this address instead of stdio")
	// Accepted so the benchmarks start both servers with one launcher
	// (startHTTPServer); the baseline logs nothing either way.
	flag.String("log-level", "", "ignored")
	flag.Parse()
	s := server.NewMCPServer("baseline", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("echo", mcp.WithDescription("Echo a message."), mcp.WithString("message", mcp.Required())),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(req.GetString("message", "")), nil
		})
	var err error
	if *listen == "" {
		err = server.ServeStdio(s)
	} else {
		err = serveHTTP(s, *listen)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func serveHTTP(s *server.MCPServer, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "baseline: serving MCP on http://%s/mcp\n", ln.Addr())
	return http.Serve(ln, server.NewStreamableHTTPServer(s))
}
