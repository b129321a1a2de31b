//go:build race

package sessions_test

// The race detector slows the pure-Go SQLite engine about fifty times, so
// under -race the shared fixture is smaller (still over a thousand
// messages); without it the fixture has over three thousand.
const fixtureBulkSessions = 20
