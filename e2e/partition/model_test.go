package partition

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/shoenig/test/must"
)

// never is the return time of a call whose outcome is unknown.
const never = math.MaxInt64

// op is a call of client from call to ret.
func op(client int, in Input, call, ret int64, out Output) porcupine.Operation {
	return porcupine.Operation{ClientId: client, Input: in, Call: call, Output: out, Return: ret}
}

func reg(id, value string) Input { return Input{Kind: Register, JobID: id, Value: value} }
func stop(id string) Input       { return Input{Kind: Stop, JobID: id} }
func read(id string) Input       { return Input{Kind: Read, JobID: id} }

var (
	done    = Output{Outcome: Done}
	failed  = Output{Outcome: Failed}
	unknown = Output{Outcome: Unknown}
	absent  = Output{Outcome: Done, Job: Job{}}
)

// saw is a read's output: the job with value at version, stopped or not.
func saw(value string, version uint64, stopped bool) Output {
	return Output{Outcome: Done, Job: Job{Exists: true, Value: value, Version: version, Stopped: stopped}}
}

// TestModel_acceptsALinearizableHistory is a history of two jobs that
// exercises every rule of the model: reads concurrent with a write see it
// or not, a stop bumps the version once, a failed register is never seen,
// a register of unknown outcome is seen late or never.
func TestModel_acceptsALinearizableHistory(t *testing.T) {
	history := []porcupine.Operation{
		op(0, reg("a", "w1"), 0, 10, done),
		op(1, read("a"), 5, 6, absent), // before the register took effect
		op(1, read("a"), 11, 12, saw("w1", 0, false)),
		op(0, stop("a"), 13, 20, done),
		op(1, read("a"), 15, 16, saw("w1", 0, false)), // before the stop
		op(2, stop("a"), 17, 18, done),                // a second stop changes nothing
		op(1, read("a"), 21, 22, saw("w1", 1, true)),
		op(0, reg("a", "w2"), 23, never, unknown),
		op(1, read("a"), 24, 25, saw("w1", 1, true)), // not yet applied
		op(3, reg("a", "w3"), 26, 27, failed),
		op(1, read("a"), 30, 31, saw("w2", 2, false)), // applied late
		op(3, reg("a", "w2"), 32, 33, done),           // the same spec again: same version
		op(1, read("a"), 34, 35, saw("w2", 2, false)),

		op(4, reg("b", "w4"), 0, never, unknown), // never applied
		op(5, read("b"), 5, 6, absent),
		op(5, read("b"), 50, 51, absent),
		op(5, stop("b"), 52, 53, done), // stopping an absent job changes nothing
		op(5, read("b"), 54, 55, absent),
	}
	must.True(t, porcupine.CheckOperations(Model, history))

	v := check(t, history)
	must.Eq(t, porcupine.Ok, v.Result)
	must.Eq(t, 2, v.Jobs)
	must.SliceEmpty(t, v.Anomalies)
}

// TestModel_rejectsAnomalies gives the model one history per anomaly the
// suite looks for, each next to a job whose history is linearizable.
func TestModel_rejectsAnomalies(t *testing.T) {
	for name, ops := range map[string][]porcupine.Operation{
		"stale read": {
			op(0, reg("x", "w1"), 0, 1, done),
			op(0, reg("x", "w2"), 2, 3, done),
			op(1, read("x"), 4, 5, saw("w1", 0, false)),
		},
		"failed write applied": {
			op(0, reg("x", "w1"), 0, 1, done),
			op(0, reg("x", "w2"), 2, 3, failed),
			op(1, read("x"), 4, 5, saw("w2", 1, false)),
		},
		"write applied twice": {
			op(0, reg("x", "w1"), 0, 1, done),
			op(0, reg("x", "w2"), 2, 3, done),
			op(1, read("x"), 4, 5, saw("w2", 1, false)),
			op(1, read("x"), 6, 7, saw("w1", 2, false)),
		},
		"write of unknown outcome seen, then undone": {
			op(0, reg("x", "w1"), 0, 1, done),
			op(0, reg("x", "w2"), 2, never, unknown),
			op(1, read("x"), 3, 4, saw("w2", 1, false)),
			op(1, read("x"), 5, 6, saw("w1", 0, false)),
		},
		"stop nobody asked for": {
			op(0, reg("x", "w1"), 0, 1, done),
			op(1, read("x"), 2, 3, saw("w1", 1, true)),
		},
		"version skipped": {
			op(0, reg("x", "w1"), 0, 1, done),
			op(0, reg("x", "w2"), 2, 3, done),
			op(1, read("x"), 4, 5, saw("w2", 2, false)),
		},
		"acknowledged write lost": {
			op(0, reg("x", "w1"), 0, 1, done),
			op(1, read("x"), 2, 3, absent),
		},
	} {
		t.Run(name, func(t *testing.T) {
			history := append([]porcupine.Operation{
				op(2, reg("ok", "w9"), 0, 1, done),
				op(3, read("ok"), 2, 3, saw("w9", 0, false)),
			}, ops...)
			must.False(t, porcupine.CheckOperations(Model, history))

			v := check(t, history)
			must.Eq(t, porcupine.Illegal, v.Result)
			must.Eq(t, 2, v.Jobs)
			must.Eq(t, []string{"x"}, v.Anomalies)

			dir := t.TempDir()
			paths, err := v.Visualize(dir)
			must.NoError(t, err)
			must.Eq(t, []string{filepath.Join(dir, "x.html")}, paths)
			info, err := os.Stat(paths[0])
			must.NoError(t, err)
			must.Positive(t, info.Size())
		})
	}
}

// check runs History.Check on hand-made operations.
func check(t *testing.T, ops []porcupine.Operation) Verdict {
	t.Helper()
	h := NewHistory()
	h.ops = ops
	return h.Check(10 * time.Second)
}

// TestHistory_records checks what a recorded call becomes: an answered
// call ends when it returned, a write of unknown outcome never ends, a read
// that was not answered is left out.
func TestHistory_records(t *testing.T) {
	h := NewHistory()
	c0, c1 := h.Client(), h.Client()
	must.NotEq(t, c0, c1)

	h.Begin(c0, reg("a", "w1")).End(done, "s0")
	h.Begin(c1, read("a")).End(Output{Outcome: Unknown}, "s1: timeout")
	h.Begin(c1, reg("a", "w2")).End(unknown, "s1: timeout")
	h.Begin(c0, read("a")).End(saw("w1", 0, false), "s0")

	ops := h.Operations()
	must.SliceLen(t, 3, ops)
	must.Eq(t, reg("a", "w1"), ops[0].Input.(Input))
	must.True(t, ops[0].Call <= ops[0].Return && ops[0].Return < never)
	must.Eq(t, "s0", ops[0].Metadata.(string))
	must.Eq(t, reg("a", "w2"), ops[1].Input.(Input))
	must.Eq(t, int64(never), ops[1].Return)
	must.Eq(t, read("a"), ops[2].Input.(Input))
	must.True(t, ops[2].Call >= ops[0].Return)

	counts := h.Counts()
	must.Eq(t, 1, counts[Register][Done])
	must.Eq(t, 1, counts[Register][Unknown])
	must.Eq(t, 1, counts[Read][Done])
	must.Eq(t, 0, counts[Read][Unknown])
	must.Eq(t, porcupine.Ok, h.Check(10*time.Second).Result)
}
