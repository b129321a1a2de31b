//go:build !unix

package main

import "os"

// reserveStdout keeps stdout as it is where descriptors cannot be swapped.
func reserveStdout() (*os.File, error) { return os.Stdout, nil }
