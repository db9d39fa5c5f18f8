package api

import "time"

// UpdateStrategy is an update block: how a new job version replaces a
// group's allocations (rolling, max_parallel at a time) and when the
// deployment that does it counts an allocation healthy.
type UpdateStrategy struct {
	Stagger          *time.Duration `json:",omitempty"`
	MaxParallel      *int           `json:",omitempty"`
	HealthCheck      *string        `json:",omitempty"`
	MinHealthyTime   *time.Duration `json:",omitempty"`
	HealthyDeadline  *time.Duration `json:",omitempty"`
	ProgressDeadline *time.Duration `json:",omitempty"`
	Canary           *int           `json:",omitempty"`
	AutoRevert       *bool          `json:",omitempty"`
	AutoPromote      *bool          `json:",omitempty"`
}
