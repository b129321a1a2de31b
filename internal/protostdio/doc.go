// Package protostdio prepares a stdio protocol server's standard streams.
// Stdout is kept for the protocol alone: a stray print or a child process
// that inherits fd 1 must not corrupt the JSON-RPC stream. Stdin is read
// through the runtime's poller when it can be, so that waiting for the
// next request parks a goroutine instead of holding a thread and its
// processor in a blocking read. hermes-tools-mcp serves through it.
package protostdio
