package nomad

import (
	"errors"

	"github.com/drover-io/drover/nomad/stream"
)

// ErrEventsDisabled refuses a subscription on a server whose event stream
// is turned off.
var ErrEventsDisabled = errors.New("the event stream is disabled on this server (server { enable_event_broker = false })")

// SubscribeEvents subscribes to the server's event stream. It reads this
// server's own buffer, so a follower serves it as well as the leader: every
// server publishes the same events, derived from the raft log.
func (s *Server) SubscribeEvents(req stream.SubscribeRequest) (*stream.Subscription, error) {
	if s.events == nil {
		return nil, ErrEventsDisabled
	}
	return s.events.Subscribe(req)
}
