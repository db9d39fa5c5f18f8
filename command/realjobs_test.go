package command

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoenig/test/must"
)

// realJobsDir holds real jobspecs from public repositories, beside the
// project (../shared), never copied into it: a yardstick of how many of
// the jobs Nomad's users write Drover accepts.
const realJobsDir = "../../shared/realjobs"

// realJobsFloor is how many of the real jobspecs that Nomad validates
// `drover job validate` must accept. Raise it as Drover accepts more;
// it must never fall.
const realJobsFloor = 30

// TestRealJobs_Floor validates, as `drover job validate` does, every
// jobspec of realJobsDir that its manifest says Nomad validates, with its
// NNN.vars.hcl when there is one (as realjobs/check.sh does), and holds
// the count Drover accepts to realJobsFloor. Each refused file is logged
// with its first error, so the count can be explained.
func TestRealJobs_Floor(t *testing.T) {
	manifest := filepath.Join(realJobsDir, "manifest.tsv")
	if _, err := os.Stat(manifest); errors.Is(err, fs.ErrNotExist) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing; CI lays shared/ beside the clone", manifest)
		}
		t.Skipf("%s is missing", manifest)
	}
	files := nomadValidated(t, manifest)
	must.Positive(t, len(files))

	accepted := 0
	for _, file := range files {
		args := []string{"job", "validate"}
		vars := filepath.Join(realJobsDir, strings.TrimSuffix(file, ".nomad.hcl")+".vars.hcl")
		if _, err := os.Stat(vars); err == nil {
			args = append(args, "-var-file="+vars)
		}
		code, out, errOut := runCLI(t, "", append(args, filepath.Join(realJobsDir, file))...)
		if code == 0 {
			accepted++
			continue
		}
		t.Logf("refused %s: %s", file, firstLine(errOut+out))
	}
	t.Logf("drover accepts %d of the %d real jobspecs that Nomad validates", accepted, len(files))
	must.GreaterEq(t, realJobsFloor, accepted,
		must.Sprintf("drover accepts %d of the real jobspecs, fewer than the floor of %d", accepted, realJobsFloor))
}

// nomadValidated lists the files the manifest (file, type, periodic,
// parameterized, repo, path, commit, nomad_validates) marks as validated
// by Nomad.
func nomadValidated(t *testing.T, manifest string) []string {
	t.Helper()
	f, err := os.Open(manifest)
	must.NoError(t, err)
	defer f.Close()
	var files []string
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		cols := strings.Split(scanner.Text(), "\t")
		if len(cols) < 8 || cols[0] == "file" {
			continue
		}
		if cols[7] == "yes" {
			files = append(files, cols[0])
		}
	}
	must.NoError(t, scanner.Err())
	return files
}

// firstLine is the first non-blank line of s.
func firstLine(s string) string {
	for line := range strings.Lines(s) {
		if line = strings.TrimSpace(line); line != "" {
			return line
		}
	}
	return ""
}
