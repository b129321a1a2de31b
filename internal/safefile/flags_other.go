//go:build !unix

package safefile

// openFlags: no FIFOs to block on here; Resolve and fstat do the work.
const openFlags = 0

// appendFlags: nothing to add; fstat does the work.
const appendFlags = 0
