package membership

import (
	"slices"
	"strings"
	"sync"
	"time"
)

// Member statuses.
const (
	StatusAlive  = "alive"
	StatusFailed = "failed"
)

// Member is one server of the cluster as this server knows it.
type Member struct {
	ID              string
	Name            string
	Region          string
	Datacenter      string
	RPCAddr         string // "host:port" for RPC and raft
	HTTPAddr        string // "host:port" of the server agent's HTTP API
	BootstrapExpect int
	Build           string

	// Status is this server's view: alive when it reached the member
	// recently, failed when it did not. Status is never taken from
	// another server's report about a third one, except for members this
	// server has not contacted yet.
	Status string

	// Voter reports whether the member is a voter in the raft
	// configuration.
	Voter bool
}

// Table is the set of servers this server knows of.
type Table struct {
	selfID string

	mu      sync.Mutex
	members map[string]*record
}

type record struct {
	Member
	// direct: the addresses came from the member itself, so hearsay from
	// other servers does not replace them.
	direct      bool
	lastContact time.Time
}

func NewTable(self Member) *Table {
	self.Status = StatusAlive
	return &Table{
		selfID:  self.ID,
		members: map[string]*record{self.ID: {Member: self, direct: true, lastContact: time.Now()}},
	}
}

// Self returns this server's own record.
func (t *Table) Self() Member {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.members[t.selfID].Member
}

// Contacted records that m answered this server.
func (t *Table) Contacted(m Member) {
	if m.ID == "" || m.ID == t.selfID {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	m.Status = StatusAlive
	t.members[m.ID] = &record{Member: m, direct: true, lastContact: time.Now()}
}

// HeardOf records members another server reported. Members this server
// knows first-hand keep their record.
func (t *Table) HeardOf(ms []Member) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, m := range ms {
		if m.ID == "" || m.RPCAddr == "" || m.ID == t.selfID {
			continue
		}
		if rec, ok := t.members[m.ID]; ok && rec.direct {
			continue
		}
		if m.Status == "" {
			m.Status = StatusFailed
		}
		t.members[m.ID] = &record{Member: m}
	}
}

// Unreachable marks the member at rpcAddr failed.
func (t *Table) Unreachable(rpcAddr string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for id, rec := range t.members {
		if id != t.selfID && rec.RPCAddr == rpcAddr {
			rec.Status = StatusFailed
		}
	}
}

// ByID returns the member with the given ID.
func (t *Table) ByID(id string) (Member, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	rec, ok := t.members[id]
	if !ok {
		return Member{}, false
	}
	return rec.Member, true
}

// List returns every known member, sorted by ID.
func (t *Table) List() []Member {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]Member, 0, len(t.members))
	for _, rec := range t.members {
		out = append(out, rec.Member)
	}
	slices.SortFunc(out, func(a, b Member) int { return strings.Compare(a.ID, b.ID) })
	return out
}
