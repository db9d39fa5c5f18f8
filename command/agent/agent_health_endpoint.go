package agent

import (
	"net/http"
)

// agentHealth is the answer to GET /v1/agent/health, as Nomad's: the
// health of the agent's server and client, each absent when the agent
// runs none.
type agentHealth struct {
	Client *componentHealth `json:"client,omitempty"`
	Server *componentHealth `json:"server,omitempty"`
}

type componentHealth struct {
	Ok      bool   `json:"ok"`
	Message string `json:"message"`
}

// agentHealthHandler serves GET /v1/agent/health: a server is healthy
// when it knows a leader and can connect to it, a client once it has
// registered its node with the servers. The answer is a 500 when either
// is not, so that a load balancer or a service manager's check needs only
// the status.
func (s *HTTPServer) agentHealthHandler(w http.ResponseWriter, r *http.Request) (any, error) {
	var h agentHealth
	if srv := s.agent.server; srv != nil {
		h.Server = serverHealth(srv)
	}
	if c := s.agent.client; c != nil {
		h.Client = &componentHealth{Message: "node not registered with the servers yet"}
		select {
		case <-c.Registered():
			h.Client = &componentHealth{Ok: true, Message: "ok"}
		default:
		}
	}
	code := http.StatusOK
	if (h.Server != nil && !h.Server.Ok) || (h.Client != nil && !h.Client.Ok) {
		code = http.StatusInternalServerError
	}
	s.WriteJSONStatus(w, r, code, h)
	return nil, nil
}

// leaderStatus is what a server's health depends on (a *nomad.Server).
type leaderStatus interface {
	KnownLeader() bool
	LeaderUnreachable() error
}

// serverHealth is a server's part of the health answer. A server whose
// raft follows a leader it cannot open connections to takes no write and
// no client heartbeat: it is not healthy, and says why.
func serverHealth(srv leaderStatus) *componentHealth {
	if !srv.KnownLeader() {
		return &componentHealth{Message: "no known leader"}
	}
	if err := srv.LeaderUnreachable(); err != nil {
		return &componentHealth{Message: err.Error()}
	}
	return &componentHealth{Ok: true, Message: "ok"}
}
