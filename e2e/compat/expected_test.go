package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/shoenig/test/must"
)

func TestParseExpectations(t *testing.T) {
	src := `# comment

fail: Drover has no deployments
see: HTTP API routes
TestDeployments_List
TestJobs_Info/prefix

skip: timing-dependent unit test
TestAcquireLock_MultipleInstances
`
	ex, err := parseExpectations(strings.NewReader(src), "list")
	must.NoError(t, err)
	must.Len(t, 2, ex.reasons)
	must.Eq(t, "Drover has no deployments", ex.fail["TestDeployments_List"].Why)
	must.Eq(t, "HTTP API routes", ex.fail["TestJobs_Info/prefix"].See)
	must.Eq(t, "timing-dependent unit test", ex.skip["TestAcquireLock_MultipleInstances"].Why)
	must.Nil(t, ex.fail["TestAcquireLock_MultipleInstances"])
	must.Eq(t, "^(TestAcquireLock_MultipleInstances)$", ex.skipPattern())
}

func TestParseExpectations_Errors(t *testing.T) {
	cases := map[string]struct{ src, want string }{
		"test without reason":  {"TestA\n", "list:1: test TestA comes before any fail: or skip: line"},
		"empty reason":         {"fail:\nsee: x\nTestA\n", "list:1: a group needs its reason"},
		"no see":               {"fail: why\nTestA\n", "list:2: test TestA: its group has no see: line"},
		"see after tests":      {"fail: why\nsee: x\nTestA\nsee: y\n", "list:4: see: belongs right after"},
		"listed twice":         {"fail: a\nsee: x\nTestA\nfail: b\nsee: x\nTestA\n", `list:6: test TestA is listed twice (also under "a")`},
		"group without tests":  {"fail: a\nsee: x\nfail: b\nsee: x\nTestB\n", `list:3: group "a" lists no test`},
		"last group empty":     {"fail: a\nsee: x\n", `list: group "a" lists no test`},
		"stray text":           {"fail: a\nsee: x\njobs are fun\n", `list:3: "jobs are fun" is neither`},
		"skipped subtest":      {"skip: a\nsee: x\nTestA/b\n", "list:3: test TestA/b: only a top-level test can be left out"},
		"not a test function":  {"fail: a\nsee: x\nExampleA\n", `list:3: "ExampleA" is neither`},
		"test name with space": {"fail: a\nsee: x\nTestA b\n", `list:3: "TestA b" is neither`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := parseExpectations(strings.NewReader(tc.src), "list")
			must.ErrorContains(t, err, tc.want)
		})
	}
}

// The checked-in list parses, and each group's see: names a heading of the
// "Differences from Nomad" page, where the difference is documented.
func TestExpectedFailuresList(t *testing.T) {
	f, err := os.Open("expected-failures.txt")
	must.NoError(t, err)
	defer f.Close()
	ex, err := parseExpectations(f, "expected-failures.txt")
	must.NoError(t, err)
	must.SliceNotEmpty(t, ex.reasons)

	page, err := os.ReadFile(filepath.Join("..", "..", "website", "content", "docs", "differences.md"))
	must.NoError(t, err)
	headings := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^#{2,3} (.+)$`).FindAllStringSubmatch(string(page), -1) {
		headings[strings.TrimSpace(m[1])] = true
	}
	for _, r := range ex.reasons {
		if r.See != "" || !r.Skip {
			must.True(t, headings[r.See], must.Sprintf("group %q: see: %q is no heading of differences.md", r.Why, r.See))
		}
	}
}
