package website

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

// TestAllocationJSONExamples holds the allocation examples of the API
// reference to the wire types: each decodes into api.Allocation (or a
// list of api.AllocationListStub) with no field the type lacks, and an
// allocation with a deadline shows every MaxRun* field the agent sends for
// one (MaxRunScope was once missing), as does each of its task states.
func TestAllocationJSONExamples(t *testing.T) {
	var full, listed int
	for _, block := range fencedBlocks(readDoc(t, "api/allocations.md"), "json") {
		if !strings.Contains(block, `"ClientStatus"`) {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(block))
		dec.DisallowUnknownFields()
		if strings.HasPrefix(strings.TrimSpace(block), "[") {
			var stubs []*api.AllocationListStub
			must.NoError(t, dec.Decode(&stubs), must.Sprintf("a listed allocation example:\n%s", block))
			var raw []map[string]json.RawMessage
			must.NoError(t, json.Unmarshal([]byte(block), &raw))
			for i, stub := range stubs {
				if stub.MaxRunDeadline != 0 {
					mustShowMaxRunFields(t, reflect.TypeFor[api.AllocationListStub](), raw[i], "a listed allocation")
				}
				listed++
			}
			continue
		}
		var alloc api.Allocation
		must.NoError(t, dec.Decode(&alloc), must.Sprintf("an allocation example:\n%s", block))
		var raw struct {
			TaskStates map[string]map[string]json.RawMessage
		}
		must.NoError(t, json.Unmarshal([]byte(block), &raw))
		var top map[string]json.RawMessage
		must.NoError(t, json.Unmarshal([]byte(block), &top))
		if alloc.MaxRunDeadline != 0 {
			mustShowMaxRunFields(t, reflect.TypeFor[api.Allocation](), top, "an allocation")
		}
		for name, ts := range alloc.TaskStates {
			if ts.MaxRunDeadline == 0 {
				continue
			}
			for _, field := range []string{"RunnerStartedAt", "MaxRunDuration", "MaxRunScope"} {
				_, ok := raw.TaskStates[name][field]
				must.True(t, ok, must.Sprintf("task state %q has a MaxRunDeadline but no %s", name, field))
			}
		}
		full++
	}
	must.Positive(t, full, must.Sprint("api/allocations.md has no allocation example"))
	must.Positive(t, listed, must.Sprint("api/allocations.md has no allocation list example"))
}

// mustShowMaxRunFields fails unless raw, an example of typ with a deadline
// that stopped it, has every MaxRun* field of typ but MaxRunOverride,
// which only an allocation whose budget was changed has.
func mustShowMaxRunFields(t *testing.T, typ reflect.Type, raw map[string]json.RawMessage, what string) {
	t.Helper()
	for f := range typ.Fields() {
		if !strings.HasPrefix(f.Name, "MaxRun") || f.Name == "MaxRunOverride" {
			continue
		}
		_, ok := raw[f.Name]
		must.True(t, ok, must.Sprintf("%s example with a deadline lacks %s", what, f.Name))
	}
}

// TestGettingStarted_AllocationsGrep holds the getting-started page's grep
// of a job's allocations to what the agent sends: MaxRunDeadline once in
// each task state of examples/maxrun.hcl and once for the allocation.
func TestGettingStarted_AllocationsGrep(t *testing.T) {
	page := readDoc(t, "getting-started.md")
	var grep string
	for _, block := range fencedBlocks(page, "shell-session") {
		if strings.Contains(block, "/allocations?pretty") {
			grep = block
		}
	}
	must.NotEq(t, "", grep, must.Sprint("getting-started.md shows no grep of a job's allocations"))
	tasks := len(validExample(t, exampleMaxRun, nil).TaskGroups[0].Tasks)
	must.Eq(t, tasks+1, bytes.Count([]byte(grep), []byte(`"MaxRunDeadline"`)),
		must.Sprintf("MaxRunDeadline shows once per task state (%d) and once for the allocation:\n%s", tasks, grep))
	must.StrContains(t, grep, `curl -s "$DROVER_ADDR/`)
}
