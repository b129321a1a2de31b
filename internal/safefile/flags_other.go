//go:build !unix

package safefile

// openFlags: no FIFOs to block on here; Resolve and fstat do the work.
const openFlags = 0
