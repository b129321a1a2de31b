// Package testkit is the one place for the test doubles and test helpers
// shared across packages: local fakes of the remote APIs (fakeapis,
// fakechat, fakeresponses, fakeanthropic, fakegemini, on fakeserver), a
// DNS stub (dnsstub), the real codex driven offline (codextest), the
// binaries under test (toolsbuild) and golden files (golden). Only tests
// import them; TestNoBinaryLinksTheTestKit holds the binaries to that.
package testkit
