package java

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/shoenig/test/must"
)

func TestParseVersion(t *testing.T) {
	v, err := parseVersion(`Picked up JAVA_TOOL_OPTIONS: -Xss1m
openjdk version "17.0.15" 2025-04-15
OpenJDK Runtime Environment (build 17.0.15+6-Debian-1deb12u1)
OpenJDK 64-Bit Server VM (build 17.0.15+6-Debian-1deb12u1, mixed mode, sharing)
`)
	must.NoError(t, err)
	must.Eq(t, Version{
		Version: "17.0.15",
		Runtime: "OpenJDK Runtime Environment (build 17.0.15+6-Debian-1deb12u1)",
		VM:      "OpenJDK 64-Bit Server VM (build 17.0.15+6-Debian-1deb12u1, mixed mode, sharing)",
	}, v)

	v, err = parseVersion("java version \"1.8.0_402\"\r\nJava(TM) SE Runtime Environment (build 1.8.0_402-b06)\r\n")
	must.NoError(t, err)
	must.Eq(t, Version{Version: "1.8.0_402", Runtime: "Java(TM) SE Runtime Environment (build 1.8.0_402-b06)"}, v)

	_, err = parseVersion("bash: java: command not found")
	must.ErrorContains(t, err, `no version line in its output: "bash: java: command not found"`)
}

func TestVersionProbe_NoJava(t *testing.T) {
	p := &versionProbe{java: filepath.Join(t.TempDir(), "java")}
	_, err := p.get(context.Background())
	must.ErrorContains(t, err, "-version")

	// A java that says nothing of its version is no java.
	fake := filepath.Join(t.TempDir(), "java")
	must.NoError(t, os.WriteFile(fake, []byte("#!/bin/sh\necho hello >&2\n"), 0o755))
	_, err = (&versionProbe{java: fake}).get(context.Background())
	must.ErrorContains(t, err, `no version line in its output: "hello"`)
}
