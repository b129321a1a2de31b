// Package dist holds the test of `make dist`, the release archives: it has
// no code of its own.
package dist
