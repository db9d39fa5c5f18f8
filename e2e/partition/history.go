package partition

import (
	"cmp"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"
)

// History is the calls of concurrent callers, each with the times it began
// and ended on one monotonic clock, for the linearizability checker.
type History struct {
	start time.Time

	mu      sync.Mutex
	ops     []porcupine.Operation
	clients int
}

// NewHistory starts an empty history; its clock starts now.
func NewHistory() *History {
	return &History{start: time.Now()}
}

// Client returns an ID for a new caller. A caller whose call's outcome is
// unknown takes a new one for its next call: as far as the checker knows,
// the old one is still busy with that call.
func (h *History) Client() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.clients++
	return h.clients - 1
}

// Call is a call under way.
type Call struct {
	h      *History
	client int
	input  Input
	began  time.Time
}

// Begin records that client calls with input, now.
func (h *History) Begin(client int, input Input) *Call {
	return &Call{h: h, client: client, input: input, began: time.Now()}
}

// End records what the call returned, now, and note (such as the server
// asked and the error) for the visualization. A read that was not answered
// is left out: it constrains nothing. A write whose outcome is unknown
// never ends: it may take effect at any time after it began.
func (c *Call) End(out Output, note string) {
	ended := time.Now()
	h := c.h
	if c.input.Kind == Read && out.Outcome != Done {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	ret := int64(ended.Sub(h.start))
	if out.Outcome == Unknown {
		ret = math.MaxInt64
	}
	h.ops = append(h.ops, porcupine.Operation{
		ClientId: c.client,
		Input:    c.input,
		Call:     int64(c.began.Sub(h.start)),
		Output:   out,
		Return:   ret,
		Metadata: note,
	})
}

// Operations returns a copy of the calls recorded so far.
func (h *History) Operations() []porcupine.Operation {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]porcupine.Operation(nil), h.ops...)
}

// Counts are how many calls of each kind had each outcome.
type Counts map[Kind]map[Outcome]int

func (c Counts) String() string {
	s := ""
	for _, k := range []Kind{Register, Stop, Read} {
		s += fmt.Sprintf("%s %d/%d/%d ", k, c[k][Done], c[k][Failed], c[k][Unknown])
	}
	return s + "(done/failed/unknown)"
}

// Counts counts the calls recorded so far. Reads that were not answered
// are not recorded, and not counted.
func (h *History) Counts() Counts {
	c := Counts{}
	for _, op := range h.Operations() {
		k, o := op.Input.(Input).Kind, op.Output.(Output).Outcome
		if c[k] == nil {
			c[k] = map[Outcome]int{}
		}
		c[k][o]++
	}
	return c
}

// Verdict is the checker's answer for a history.
type Verdict struct {
	// Result is Ok, Illegal, or Unknown if the checker ran out of time.
	Result porcupine.CheckResult
	// Jobs is how many jobs' calls were checked, each on its own.
	Jobs int
	// Anomalies are the jobs whose calls are not linearizable.
	Anomalies []string
	// Undecided are the jobs the checker ran out of time on.
	Undecided []string

	// infos are the checker's findings on the jobs that are not Ok, and
	// calls their calls, for their visualization.
	infos map[string]porcupine.LinearizationInfo
	calls map[string][]porcupine.Operation
}

// Check checks the history for linearizability against Model, each job's
// calls on their own, giving each at most timeout.
func (h *History) Check(timeout time.Duration) Verdict {
	v := Verdict{
		Result: porcupine.Ok,
		infos:  map[string]porcupine.LinearizationInfo{},
		calls:  map[string][]porcupine.Operation{},
	}
	single := Model
	single.Partition = nil
	for _, calls := range byJob(h.Operations()) {
		v.Jobs++
		id := calls[0].Input.(Input).JobID
		result, info := porcupine.CheckOperationsVerbose(single, calls, timeout)
		switch result {
		case porcupine.Illegal:
			v.Anomalies = append(v.Anomalies, id)
		case porcupine.Unknown:
			v.Undecided = append(v.Undecided, id)
		default:
			continue
		}
		v.infos[id], v.calls[id] = info, calls
	}
	switch {
	case len(v.Anomalies) > 0:
		v.Result = porcupine.Illegal
	case len(v.Undecided) > 0:
		v.Result = porcupine.Unknown
	}
	return v
}

// Visualize writes porcupine's visualization of the calls of each job
// that is not known to be linearizable, with the longest linearizable
// prefixes the checker found, to an HTML file named after the job in dir,
// and the calls as text, in the order they began, beside it. It returns
// the HTML files' paths.
func (v Verdict) Visualize(dir string) ([]string, error) {
	var paths []string
	for _, id := range append(append([]string(nil), v.Anomalies...), v.Undecided...) {
		path := filepath.Join(dir, id+".html")
		if err := porcupine.VisualizePath(Model, v.infos[id], path); err != nil {
			return paths, fmt.Errorf("visualize the calls of job %s: %w", id, err)
		}
		if err := os.WriteFile(filepath.Join(dir, id+".txt"), []byte(listCalls(v.calls[id])), 0o644); err != nil {
			return paths, fmt.Errorf("list the calls of job %s: %w", id, err)
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// listCalls lists calls one a line, in the order they began: when each
// began and ended (seconds on the history's clock), its caller, what it
// asked, what it returned, and its note.
func listCalls(calls []porcupine.Operation) string {
	sorted := slices.SortedFunc(slices.Values(calls), func(a, b porcupine.Operation) int {
		return cmp.Compare(a.Call, b.Call)
	})
	var b strings.Builder
	for _, op := range sorted {
		end := "never"
		if op.Return != math.MaxInt64 {
			end = fmt.Sprintf("%.3f", time.Duration(op.Return).Seconds())
		}
		fmt.Fprintf(&b, "%8.3f %8s  caller %-3d %-40s  [%v]\n", time.Duration(op.Call).Seconds(), end,
			op.ClientId, Model.DescribeOperation(op.Input, op.Output), op.Metadata)
	}
	return b.String()
}
