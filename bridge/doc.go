// Package bridge drives `codex app-server`, the JSON-RPC interface of the
// OpenAI Codex CLI, for Hermes's codex runtime.
//
// Two layers:
//
// Client is the connection. Start spawns the codex binary and speaks
// newline-delimited JSON-RPC with it over stdin and stdout
// (github.com/sourcegraph/jsonrpc2 with a plain object stream). It offers
// Call and Notify, Initialize for the handshake, in-order delivery of server
// notifications, server→client requests answered asynchronously on their own
// goroutines, liveness (Done, Err), a bounded redacted stderr tail, and a
// Close that always reaps the child. CheckVersion and FindBinary locate a
// usable codex; ListPlugins and DiscoverPlugins report installed plugins.
//
// Session is one codex thread for one Hermes session. It starts codex on
// first use (initialize, then thread/start or thread/resume), and RunTurn
// sends a turn and waits for it, event-driven, while:
//
//   - projecting codex's items into an OpenAI-style transcript with the
//     Python Hermes's rules (Projector);
//   - answering codex's requests: command and file-change approvals through
//     an Approver (no Approver declines), permission requests with an empty
//     grant, MCP elicitations accepted for Hermes's own server only, and
//     calls of the session's DynamicTools;
//   - watching for every way a turn can go wrong: the turn deadline, codex
//     going silent after a tool result, codex dying, a <turn_aborted>
//     marker, a failed turn, an expired login (reported with the
//     `codex login` hint). Failures come back in TurnResult.Err with the
//     redacted tail of codex's stderr, and ShouldRetire when codex is no
//     longer trustworthy. Cancelling RunTurn's context interrupts the turn.
//
// The package never prints. Diagnostics go to the *slog.Logger in Config, and
// any text that may carry provider or codex output (stderr, JSON-RPC error
// messages, tool errors) is passed through internal/redact before it reaches
// an error or codex.
package bridge
