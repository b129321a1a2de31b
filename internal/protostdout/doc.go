// Package protostdout keeps a stdio protocol server's stdout for the
// protocol alone: a stray print or a child process that inherits fd 1 must
// not corrupt the JSON-RPC stream. Both stdio servers (hermes-tools-mcp and
// hermes-tools-worker) reserve it before serving.
package protostdout
