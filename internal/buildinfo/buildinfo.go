// Package buildinfo reports the version of the running binary.
package buildinfo

import "runtime/debug"

// Version returns stamped (set at release time with -ldflags -X), else the
// module version recorded by `go install`, else "dev".
func Version(stamped string) string {
	if stamped != "" {
		return stamped
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
