// Package bridge is a client for `codex app-server`, the JSON-RPC interface of
// the OpenAI Codex CLI.
//
// Start spawns the codex binary and speaks newline-delimited JSON-RPC with it
// over stdin and stdout (github.com/sourcegraph/jsonrpc2 with a plain object
// stream). The Client then offers:
//
//   - Call and Notify for client→server traffic, and Initialize for the
//     handshake;
//   - in-order delivery of server notifications to Config.OnNotification;
//   - server→client requests (approvals, dynamic tool calls, …) dispatched
//     to Config.OnRequest on their own goroutine and answered asynchronously;
//   - liveness (Done, Err) and a bounded, redacted tail of codex's stderr;
//   - Close, which always reaps the child.
//
// On top of the client sit CheckVersion and FindBinary (locating a usable
// codex), and ListPlugins / DiscoverPlugins (what the user has installed in
// codex, with the filtering rules of the Python Hermes).
//
// The package never prints. Diagnostics go to the *slog.Logger in Config, and
// any text that may carry provider or codex output (stderr, JSON-RPC error
// messages) is passed through internal/redact before it reaches an error.
package bridge
