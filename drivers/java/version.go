package java

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// versionTimeout bounds `java -version`: a JVM starts in well under a
// second, but a loaded machine can be slow.
const versionTimeout = 30 * time.Second

// Version is what `java -version` says of the host's java, as Nomad's
// attributes hold it.
type Version struct {
	// Version is the version proper: "17.0.15".
	Version string
	// Runtime and VM are the second and third lines: "OpenJDK Runtime
	// Environment (build ...)", "OpenJDK 64-Bit Server VM (build ...)".
	Runtime string
	VM      string
}

// versionProbe runs `java -version` once it has answered: the host's java
// does not change while the agent runs. A failure is tried again at the
// next fingerprint, so that java installed later is found.
type versionProbe struct {
	java string
	mu   sync.Mutex
	v    *Version
}

func (p *versionProbe) get(ctx context.Context) (Version, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.v != nil {
		return *p.v, nil
	}
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, p.java, "-version")
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return Version{}, fmt.Errorf("%s -version: %w: %s", p.java, err, firstLine(out.String()))
	}
	v, err := parseVersion(out.String())
	if err != nil {
		return Version{}, fmt.Errorf("%s -version: %w", p.java, err)
	}
	p.v = &v
	return v, nil
}

// parseVersion reads `java -version`'s output (on stderr), such as
//
//	openjdk version "17.0.15" 2025-04-15
//	OpenJDK Runtime Environment (build 17.0.15+6-Debian-1deb12u1)
//	OpenJDK 64-Bit Server VM (build 17.0.15+6-Debian-1deb12u1, mixed mode, sharing)
//
// Lines before the version line (a JVM's "Picked up JAVA_TOOL_OPTIONS")
// are skipped.
func parseVersion(out string) (Version, error) {
	lines := strings.Split(strings.ReplaceAll(out, "\r\n", "\n"), "\n")
	for i, l := range lines {
		_, rest, ok := strings.Cut(l, ` version "`)
		if !ok {
			continue
		}
		ver, _, ok := strings.Cut(rest, `"`)
		if !ok || ver == "" {
			break
		}
		v := Version{Version: ver}
		if i+1 < len(lines) {
			v.Runtime = strings.TrimSpace(lines[i+1])
		}
		if i+2 < len(lines) {
			v.VM = strings.TrimSpace(lines[i+2])
		}
		return v, nil
	}
	return Version{}, fmt.Errorf("no version line in its output: %q", firstLine(out))
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	if len(l) > 200 {
		l = l[:200]
	}
	return l
}
