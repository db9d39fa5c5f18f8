package partition

import (
	"fmt"
	"math"
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
	slowest time.Duration
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
	h.mu.Lock()
	defer h.mu.Unlock()
	h.slowest = max(h.slowest, ended.Sub(c.began))
	if c.input.Kind == Read && out.Outcome != Done {
		return
	}
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

// Slowest is the longest any call took to end, including those that were
// not recorded; a call with an unknown outcome ended when its caller gave
// up on it.
func (h *History) Slowest() time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.slowest
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

	info porcupine.LinearizationInfo
}

// Check checks the history for linearizability against Model, each job's
// calls on their own, giving each at most timeout.
func (h *History) Check(timeout time.Duration) Verdict {
	ops := h.Operations()
	v := Verdict{Result: porcupine.Ok}
	single := Model
	single.Partition = nil
	for _, calls := range byJob(ops) {
		v.Jobs++
		id := calls[0].Input.(Input).JobID
		switch porcupine.CheckOperationsTimeout(single, calls, timeout) {
		case porcupine.Illegal:
			v.Anomalies = append(v.Anomalies, id)
		case porcupine.Unknown:
			v.Undecided = append(v.Undecided, id)
		}
	}
	switch {
	case len(v.Anomalies) > 0:
		v.Result = porcupine.Illegal
	case len(v.Undecided) > 0:
		v.Result = porcupine.Unknown
	}
	if v.Result != porcupine.Ok {
		// Again, for the longest linearizable prefixes of each job that
		// the visualization shows.
		_, v.info = porcupine.CheckOperationsVerbose(Model, ops, timeout)
	}
	return v
}

// Visualize writes porcupine's visualization of a history that is not
// known to be linearizable to path, an HTML file.
func (v Verdict) Visualize(path string) error {
	if v.Result == porcupine.Ok {
		return fmt.Errorf("visualize %s: the history is linearizable", path)
	}
	return porcupine.VisualizePath(Model, v.info, path)
}
