package servicecheck

import (
	"crypto/md5"
	"encoding/hex"
	"time"

	"github.com/drover-io/drover/structs"
)

// Check is one check as a run runs it: resolved to an address or a
// command, with what its status is shown under.
type Check struct {
	// ID is unique to the allocation, the owner, the service and the
	// check, and stable across runs and agents.
	ID string
	// Name, Service, Task ("" for a group's check) and Group (the
	// allocation's name) are what the status shows.
	Name    string
	Service string
	Task    string
	Group   string
	// Mode is "readiness" for a check deployments ignore (on_update =
	// "ignore"), "healthiness" otherwise, as Nomad names them.
	Mode string

	Interval time.Duration
	Timeout  time.Duration
	// Initial is the check's health before its first result.
	Initial Health
	thresholds
	// Restart is the check's check_restart, nil for none.
	Restart *structs.CheckRestart
	Probe   Prober
}

// Check modes, as Nomad's checks API names them.
const (
	ModeHealthiness = "healthiness"
	ModeReadiness   = "readiness"
)

// checkID derives a check's ID from what makes it unique. MD5 is an
// identifier here, not a safeguard: Nomad's check IDs are of its size.
func checkID(parts ...string) string {
	h := md5.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Status is a check's latest result, as the client serves it.
type Status struct {
	ID         string
	Check      string
	Group      string
	Mode       string
	Output     string
	Service    string
	Task       string
	Status     string
	StatusCode int
	// Timestamp is when the result came, in Unix seconds.
	Timestamp int64
}
