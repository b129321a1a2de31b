//go:build !unix

package protostdout

import "os"

// Reserve keeps stdout as it is where descriptors cannot be swapped.
func Reserve() (*os.File, error) { return os.Stdout, nil }
