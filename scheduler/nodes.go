package scheduler

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"

	"github.com/drover-io/drover/structs"
)

// nodePoolAll is the node pool that holds every node.
const nodePoolAll = "all"

// nodeSet is the cluster's nodes as one attempt at a plan sees them. Nodes
// are referred to by their position in all, which the per-group caches
// index.
type nodeSet struct {
	all  []*structs.Node
	byID map[string]int

	// candidates are the positions of the nodes that may take new
	// allocations of the job (ready, eligible, not draining, in one of its
	// datacenters and its node pool), in a random order fixed by the
	// evaluation ID, so that placements spread over the cluster and a run
	// is reproducible.
	candidates []int

	// available counts the candidates per datacenter, and inPool the nodes
	// of the job's pool, for placement metrics.
	available map[string]int
	inPool    int
	pool      string
}

// loadNodes reads every node and picks the job's candidates.
func loadNodes(state State, job *structs.Job, evalID string) (*nodeSet, error) {
	all, err := state.Nodes(nil)
	if err != nil {
		return nil, fmt.Errorf("read nodes: %w", err)
	}
	set := &nodeSet{
		all:       all,
		byID:      make(map[string]int, len(all)),
		available: make(map[string]int),
	}
	for i, node := range all {
		set.byID[node.ID] = i
	}
	if job == nil {
		return set, nil
	}
	scope := newJobScope(job)
	set.pool = scope.pool
	for i, node := range all {
		if !scope.inPool(node) {
			continue
		}
		set.inPool++
		if node.Ready() && scope.inDatacenters(node) {
			set.candidates = append(set.candidates, i)
			set.available[node.Datacenter]++
		}
	}
	rng := rand.New(rand.NewPCG(seedOf(evalID), uint64(len(all))))
	rng.Shuffle(len(set.candidates), func(i, j int) {
		set.candidates[i], set.candidates[j] = set.candidates[j], set.candidates[i]
	})
	return set, nil
}

// node returns the node with the given ID and its position, or nil.
func (s *nodeSet) node(id string) (*structs.Node, int) {
	i, ok := s.byID[id]
	if !ok {
		return nil, -1
	}
	return s.all[i], i
}

func seedOf(s string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(s))
	return h.Sum64()
}

// jobScope is where a job may run: its datacenters (patterns with *
// wildcards) and its node pool.
type jobScope struct {
	datacenters []string
	pool        string
	matched     map[string]bool
}

func newJobScope(job *structs.Job) *jobScope {
	pool := job.NodePool
	if pool == "" {
		pool = structs.DefaultNodePool
	}
	dcs := job.Datacenters
	if len(dcs) == 0 {
		dcs = []string{structs.AllDatacenters}
	}
	return &jobScope{datacenters: dcs, pool: pool, matched: make(map[string]bool)}
}

func (s *jobScope) inPool(node *structs.Node) bool {
	if s.pool == nodePoolAll {
		return true
	}
	pool := node.NodePool
	if pool == "" {
		pool = structs.DefaultNodePool
	}
	return pool == s.pool
}

func (s *jobScope) inDatacenters(node *structs.Node) bool {
	in, seen := s.matched[node.Datacenter]
	if !seen {
		for _, pattern := range s.datacenters {
			if globMatch(pattern, node.Datacenter) {
				in = true
				break
			}
		}
		s.matched[node.Datacenter] = in
	}
	return in
}

// contains reports whether the node is in the job's datacenters and pool,
// whatever its status.
func (s *jobScope) contains(node *structs.Node) bool {
	return s.inPool(node) && s.inDatacenters(node)
}
