package agent

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/drover-io/drover/nomad"
	"github.com/drover-io/drover/nomad/state"
)

// Response headers of Nomad's API.
const (
	headerIndex       = "X-Nomad-Index"
	headerKnownLeader = "X-Nomad-KnownLeader"
	headerLastContact = "X-Nomad-LastContact"
)

// requireServer returns the agent's server for an endpoint that needs one.
func (s *HTTPServer) requireServer() (*nomad.Server, error) {
	if srv := s.agent.server; srv != nil {
		return srv, nil
	}
	return nil, newHTTPError(http.StatusNotImplemented, "this agent runs no server: send the request to a server agent")
}

// serverWrite checks what a write to one object needs: the agent's server
// and the object's ID from the URL, named in errors by what ("job ID").
func (s *HTTPServer) serverWrite(r *http.Request, what string) (*nomad.Server, string, error) {
	srv, err := s.requireServer()
	if err != nil {
		return nil, "", err
	}
	id := r.PathValue("id")
	if err := checkID(what, id); err != nil {
		return nil, "", err
	}
	return srv, id, nil
}

// checkRegion rejects a request for a region other than the agent's: a
// Drover cluster serves one region.
func (s *HTTPServer) checkRegion(region string) error {
	if region != "" && region != s.agent.config.Region {
		return badRequest("unknown region %q: this cluster serves region %q", region, s.agent.config.Region)
	}
	return nil
}

// readServer is requireServer for reads: it also checks the region, and a
// read that is not ?stale needs a known leader, as in Nomad.
func (s *HTTPServer) readServer(opts queryOptions) (*nomad.Server, error) {
	srv, err := s.requireServer()
	if err != nil {
		return nil, err
	}
	if err := s.checkRegion(opts.Region); err != nil {
		return nil, err
	}
	if !opts.Stale && !srv.KnownLeader() {
		return nil, newHTTPError(http.StatusInternalServerError, "No cluster leader")
	}
	return srv, nil
}

// blockingQuery runs fn against the state store, blocking while the index it
// returns is not above opts.MinIndex (for at most opts.Wait plus a little
// jitter, so that many waiting clients do not all return at once), and sets
// the index and leader headers from the answer.
func (s *HTTPServer) blockingQuery(w http.ResponseWriter, r *http.Request, opts queryOptions, fn state.QueryFn) (any, error) {
	srv, err := s.readServer(opts)
	if err != nil {
		return nil, err
	}
	ctx := r.Context()
	if opts.MinIndex > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.Wait+waitJitter(opts.Wait))
		defer cancel()
	}
	for {
		resp, index, err := srv.State().BlockingQuery(ctx, opts.MinIndex, fn)
		if errors.Is(err, state.ErrAbandoned) {
			// A snapshot was restored under us; ask the new store.
			continue
		}
		if err != nil {
			return nil, err
		}
		setQueryMeta(w, srv, index)
		return resp, nil
	}
}

// waitJitter is a random extra wait of up to 1/16 of wait.
func waitJitter(wait time.Duration) time.Duration {
	if wait < 16 {
		return 0
	}
	return rand.N(wait / 16)
}

// setQueryMeta sets the headers every read carries: the index the data
// reflects (at least 1, which Nomad's clients take as "some data"), whether
// a leader is known and how long ago this server heard from it.
func setQueryMeta(w http.ResponseWriter, srv *nomad.Server, index uint64) {
	setIndex(w, index)
	h := w.Header()
	h.Set(headerKnownLeader, strconv.FormatBool(srv.KnownLeader()))
	h.Set(headerLastContact, strconv.FormatInt(srv.LastContact().Milliseconds(), 10))
}

// setIndex sets X-Nomad-Index, which writes carry too.
func setIndex(w http.ResponseWriter, index uint64) {
	w.Header().Set(headerIndex, strconv.FormatUint(max(index, 1), 10))
}

// setLatestMeta sets the read headers for a response that is not a state
// read (status, agent), from the latest index of the store.
func (s *HTTPServer) setLatestMeta(w http.ResponseWriter) error {
	srv := s.agent.server
	if srv == nil {
		return nil
	}
	index, err := srv.State().LatestIndex()
	if err != nil {
		return err
	}
	setQueryMeta(w, srv, index)
	return nil
}

// tablesIndex is the highest index of the named tables: the index of a
// result built from all of them.
func tablesIndex(st *state.StateStore, tables ...string) (uint64, error) {
	var highest uint64
	for _, table := range tables {
		index, err := st.Index(table)
		if err != nil {
			return 0, err
		}
		highest = max(highest, index)
	}
	return highest, nil
}

// listResult is what a blocking list query answers: items, as [] rather
// than null when there are none, at the index of table.
func listResult[T any](st *state.StateStore, table string, items []T, err error) (any, uint64, error) {
	if err != nil {
		return nil, 0, err
	}
	if items == nil {
		items = []T{}
	}
	index, err := st.Index(table)
	return items, index, err
}
