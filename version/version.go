// Package version holds Drover's version, set at build time.
package version

import "fmt"

// Version is the release version; Prerelease marks a development build.
var (
	Version    = "0.1.0"
	Prerelease = "dev"
	// GitCommit is set by the linker from the Makefile.
	GitCommit = ""
)

// String is the full human-readable version, e.g. "Drover v0.1.0-dev (abc1234)".
func String() string {
	v := "Drover v" + Version
	if Prerelease != "" {
		v += "-" + Prerelease
	}
	if GitCommit != "" {
		v += fmt.Sprintf(" (%s)", GitCommit)
	}
	return v
}
