package drivers

import (
	"encoding/json"
	"fmt"
	"maps"
	"time"
)

// TaskHandle is what the caller persists about a started task so that a
// later agent process can recover it.
type TaskHandle struct {
	Version int
	Driver  string
	Config  *TaskConfig
	// State is TaskStateRunning or TaskStateExited.
	State string
	// DriverState is opaque JSON owned by the driver.
	DriverState []byte
	StartedAt   time.Time
}

// SetDriverState stores v, encoded as JSON, as the handle's DriverState.
func (h *TaskHandle) SetDriverState(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode driver state: %w", err)
	}
	h.DriverState = b
	return nil
}

// GetDriverState decodes the handle's DriverState into v.
func (h *TaskHandle) GetDriverState(v any) error {
	if len(h.DriverState) == 0 {
		return fmt.Errorf("task handle for %q has no driver state", h.taskID())
	}
	if err := json.Unmarshal(h.DriverState, v); err != nil {
		return fmt.Errorf("decode driver state of task %q: %w", h.taskID(), err)
	}
	return nil
}

// Copy returns a deep copy of the handle; the copy of Config shares no maps
// with the original, but Config.Config values are copied shallowly.
func (h *TaskHandle) Copy() *TaskHandle {
	if h == nil {
		return nil
	}
	c := *h
	c.DriverState = append([]byte(nil), h.DriverState...)
	if h.Config != nil {
		cfg := *h.Config
		cfg.Config = maps.Clone(h.Config.Config)
		cfg.Env = maps.Clone(h.Config.Env)
		if h.Config.Resources != nil {
			r := *h.Config.Resources
			cfg.Resources = &r
		}
		c.Config = &cfg
	}
	return &c
}

func (h *TaskHandle) taskID() string {
	if h.Config == nil {
		return ""
	}
	return h.Config.ID
}
