package structs

import (
	"slices"
	"time"
)

// What a parameterized job asks of a dispatch's payload.
const (
	DispatchPayloadOptional  = "optional"
	DispatchPayloadRequired  = "required"
	DispatchPayloadForbidden = "forbidden"
)

// DispatchPayloadSizeLimit bounds a dispatch's payload: 16 KiB, Nomad's
// limit. The payload travels in the child job, through raft and to every
// client that runs it.
const DispatchPayloadSizeLimit = 16 * 1024

// DispatchLaunchSuffix joins a parameterized job's ID and the rest of a
// dispatched child's: "<parent>/dispatch-<unix>-<8 hex>".
const DispatchLaunchSuffix = "/dispatch-"

// ParameterizedJobConfig is a job's parameterized block: the job runs
// only when dispatched, with the inputs each dispatch brings.
type ParameterizedJobConfig struct {
	// Payload says whether a dispatch must, may or must not bring a
	// payload (DispatchPayloadRequired, ...Optional, ...Forbidden).
	Payload string
	// MetaRequired are the meta keys every dispatch must set.
	MetaRequired []string
	// MetaOptional are the further meta keys a dispatch may set.
	MetaOptional []string
	// MaxRunDurationMax is Drover's: the longest max_run_duration a
	// dispatch may ask for its child. Nil: a dispatch may ask any.
	MaxRunDurationMax *time.Duration `json:",omitempty"`
}

// DispatchPayloadConfig is a task's dispatch_payload block: the
// dispatch's payload is written to File, relative to the task's local/
// directory.
type DispatchPayloadConfig struct {
	File string
}

// Copy returns a deep copy of the block.
func (p *ParameterizedJobConfig) Copy() *ParameterizedJobConfig {
	if p == nil {
		return nil
	}
	c := *p
	c.MetaRequired = slices.Clone(p.MetaRequired)
	c.MetaOptional = slices.Clone(p.MetaOptional)
	c.MaxRunDurationMax = clonePtr(p.MaxRunDurationMax)
	return &c
}

// canonicalize makes an omitted payload requirement "optional", Nomad's
// default.
func (p *ParameterizedJobConfig) canonicalize() {
	if p != nil && p.Payload == "" {
		p.Payload = DispatchPayloadOptional
	}
}
