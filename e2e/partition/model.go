package partition

import (
	"fmt"

	"github.com/anishathalye/porcupine"
)

// Kind is what a call asks of the job store.
type Kind string

const (
	// Register registers the job with a value of the caller's, which its
	// reads return (the job's meta): a new job, or a new version of it,
	// running again if it was stopped.
	Register Kind = "register"
	// Stop stops the job; stopping a job that does not exist, or one that
	// is stopped, changes nothing and succeeds.
	Stop Kind = "stop"
	// Read reads the job.
	Read Kind = "read"
)

// Input is one call: its kind, the job, and for a register the value it
// writes.
type Input struct {
	Kind  Kind
	JobID string
	Value string
}

// Outcome is what a caller knows of its call's effect.
type Outcome int

const (
	// Done: the server answered success (for a read, with what it read).
	Done Outcome = iota
	// Failed: the server answered that the call was not carried out.
	Failed
	// Unknown: no answer came, or the answer says the write may still
	// be applied. The call may take effect at any time after it began,
	// or never.
	Unknown
)

func (o Outcome) String() string {
	switch o {
	case Done:
		return "done"
	case Failed:
		return "failed"
	case Unknown:
		return "unknown"
	}
	return fmt.Sprintf("outcome(%d)", int(o))
}

// Output is what a call returned: its outcome and, for a read that was
// answered, the job as it read it.
type Output struct {
	Outcome Outcome
	Job     Job
}

// Job is one job as the model holds it and as reads return it.
type Job struct {
	// Exists is false until the job is first registered.
	Exists bool
	// Value is the value of the last register.
	Value string
	// Stopped is the job's Stop flag.
	Stopped bool
	// Version is the job's version: 0 when first registered, one more at
	// each change of its specification (a register with another value,
	// or of a stopped job; a stop of a running job).
	Version uint64
}

func (j Job) String() string {
	switch {
	case !j.Exists:
		return "absent"
	case j.Stopped:
		return fmt.Sprintf("%s v%d stopped", j.Value, j.Version)
	}
	return fmt.Sprintf("%s v%d", j.Value, j.Version)
}

// register is j after a register writing value: a job with the same
// specification keeps its version, as the server keeps it.
func (j Job) register(value string) Job {
	switch {
	case !j.Exists:
		return Job{Exists: true, Value: value}
	case j.Value == value && !j.Stopped:
		return j
	}
	return Job{Exists: true, Value: value, Version: j.Version + 1}
}

// stop is j after a stop.
func (j Job) stop() Job {
	if !j.Exists || j.Stopped {
		return j
	}
	j.Stopped = true
	j.Version++
	return j
}

// step is the job store's sequential specification, for one job: whether
// a call with input could have returned output in state, and the state
// after it. A write that failed changed nothing; one whose outcome is
// unknown is taken as applied when the checker places it (it places it
// after every other call, which is as good as never, when that fits the
// history better). A read that was not answered constrains nothing.
func step(state, input, output any) (bool, any) {
	job, in, out := state.(Job), input.(Input), output.(Output)
	switch in.Kind {
	case Register:
		if out.Outcome == Failed {
			return true, job
		}
		return true, job.register(in.Value)
	case Stop:
		if out.Outcome == Failed {
			return true, job
		}
		return true, job.stop()
	case Read:
		return out.Outcome != Done || out.Job == job, job
	}
	return false, job
}

// Model is the job store's model for porcupine: one independent register
// of a Job per job ID, so that each job's calls are checked on their own.
var Model = porcupine.Model{
	Partition: byJob,
	Init:      func() any { return Job{} },
	Step:      step,
	DescribeOperation: func(input, output any) string {
		in, out := input.(Input), output.(Output)
		call := fmt.Sprintf("%s(%s)", in.Kind, in.JobID)
		if in.Kind == Register {
			call = fmt.Sprintf("register(%s, %s)", in.JobID, in.Value)
		}
		if in.Kind == Read && out.Outcome == Done {
			return fmt.Sprintf("%s -> %s", call, out.Job)
		}
		return fmt.Sprintf("%s -> %s", call, out.Outcome)
	},
	DescribeState: func(state any) string { return state.(Job).String() },
}

// byJob splits a history into the calls of each job, in the order the
// jobs first appear.
func byJob(history []porcupine.Operation) [][]porcupine.Operation {
	index := map[string]int{}
	var out [][]porcupine.Operation
	for _, op := range history {
		id := op.Input.(Input).JobID
		i, ok := index[id]
		if !ok {
			i = len(out)
			index[id] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], op)
	}
	return out
}
