//go:build !unix

package protostdio

import "os"

// Reserve keeps stdout as it is where descriptors cannot be swapped.
func Reserve() (*os.File, error) { return os.Stdout, nil }

// Stdin returns standard input as it is where descriptors cannot be
// polled this way.
func Stdin() *os.File { return os.Stdin }
