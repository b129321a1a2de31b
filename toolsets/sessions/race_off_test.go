//go:build !race

package sessions_test

// See race_on_test.go.
const fixtureBulkSessions = 60
