// Package realclients holds end-to-end tests, and only tests: the built
// hermes-migrate and hermes-tools-mcp run as processes (internal/testkit/toolsbuild;
// `make test-bins` builds them into $HERMES_TEST_BIN_DIR) and real MCP
// clients, pinned in .ci/npm and .ci/npm-noscripts, load the entries
// hermes-migrate wrote, headless against local fakes of their model APIs,
// and call a hermes-tools tool. The real codex loads the migrated
// config.toml and discovers plugins. A client that is not installed is
// skipped (failed under CI).
package realclients
