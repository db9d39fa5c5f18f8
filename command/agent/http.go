package agent

import (
	"net"

	"github.com/hashicorp/go-hclog"

	"github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/command/agent/httpserver"
)

// HTTPServer is the agent's HTTP API: the handlers of every endpoint,
// which need the Agent, served by an httpserver.Server that checks each
// caller against what the route table says the route needs.
type HTTPServer struct {
	*httpserver.Server

	agent  *Agent
	logger hclog.Logger
	// limits are the agent's limits block: job and jobspec sizes.
	limits config.LimitsConfig
	// forwarders reach the other agents requests are forwarded to.
	forwarders forwardTransports
}

// newHTTPServer builds the API server on ln and registers every endpoint;
// Serve starts it.
func newHTTPServer(agent *Agent, ln net.Listener, logger hclog.Logger) *HTTPServer {
	s := &HTTPServer{
		agent:  agent,
		logger: logger,
		limits: agent.config.Limits,
	}
	s.Server = httpserver.New(ln, httpserver.Options{
		Logger:    logger,
		Limits:    agent.config.Limits,
		Authorize: s.authorize,
	})
	s.forwarders = agent.forwardTransports()
	s.Handle(s.routes()...)
	s.registerUI()
	return s
}
