package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// Every process of the binary runs every package's initialisation, each
// raw_exec task supervisor too, and keeps what it allocates for as long as
// the task runs. Drover's own packages initialise lazily (sync.OnceValue)
// whatever is costly, such as a regexp with a bounded repetition, so that
// a supervisor does not pay for the server's validation tables.
const (
	// ownInitBudget bounds what one of Drover's packages allocates at
	// initialisation.
	ownInitBudget = 8 << 10
	// totalInitBudget bounds what all packages linked in allocate at
	// initialisation, dependencies included: a new dependency that builds
	// large tables at start-up (compiled regexps) costs every supervisor.
	// Today's total is about 1.15 MB, of which github.com/distribution/reference
	// and github.com/opencontainers/go-digest (brought in by the docker
	// client) take 0.5 MB.
	totalInitBudget = 1300 << 10
)

// initCostTestEnv makes the test binary exit as soon as it starts, so that
// what GODEBUG=inittrace=1 prints is initialisation alone.
const initCostTestEnv = "DROVER_TEST_INIT_COST"

func TestMain(m *testing.M) {
	if os.Getenv(initCostTestEnv) == "1" {
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestPackageInitCost(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), initCostTestEnv+"=1", "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("run %s: %v\n%s", exe, err, stderr.String())
	}
	inits := parseInitTrace(t, stderr.Bytes())
	if len(inits) == 0 {
		t.Fatalf("no init trace in:\n%s", stderr.String())
	}
	var total int
	for pkg, bytes := range inits {
		total += bytes
		if strings.HasPrefix(pkg, "github.com/drover-io/drover/") && bytes > ownInitBudget {
			t.Errorf("package %s allocates %d bytes at initialisation, more than %d: make the costly package-level values lazy (sync.OnceValue)", pkg, bytes, ownInitBudget)
		}
	}
	t.Logf("all packages allocate %d bytes at initialisation", total)
	if total > totalInitBudget {
		t.Errorf("the packages linked in allocate %d bytes at initialisation, more than %d; GODEBUG=inittrace=1 says which", total, totalInitBudget)
	}
}

// parseInitTrace reads GODEBUG=inittrace=1 output, lines such as
// "init net/http @1.2 ms, 0.05 ms clock, 4712 bytes, 49 allocs", into the
// bytes each package allocated.
func parseInitTrace(t *testing.T, out []byte) map[string]int {
	t.Helper()
	inits := make(map[string]int)
	scanner := bufio.NewScanner(bytes.NewReader(out))
	for scanner.Scan() {
		f := strings.Fields(scanner.Text())
		if len(f) < 10 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		n, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("init trace line %q: %v", scanner.Text(), err)
		}
		inits[f[1]] += n
	}
	return inits
}
