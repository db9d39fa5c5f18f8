package agent

import (
	"github.com/hashicorp/raft"

	"maps"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/nomad"
	"github.com/drover-io/drover/nomad/membership"
	"github.com/drover-io/drover/version"
)

// agentSelf is the answer to GET /v1/agent/self, with Nomad's lower-case
// top-level keys.
type agentSelf struct {
	Config *selfConfig                  `json:"config"`
	Member *agentMember                 `json:"member"`
	Stats  map[string]map[string]string `json:"stats"`
}

// selfConfig is the agent configuration as /v1/agent/self shows it, under
// the names Nomad's agent uses for the same settings.
type selfConfig struct {
	Region         string
	Datacenter     string
	NodeName       string
	DataDir        string
	BindAddr       string
	LogLevel       string
	DevMode        bool
	Ports          config.Ports
	Addresses      config.Addresses
	AdvertiseAddrs config.Addresses
	Server         selfServerConfig
	Client         selfClientConfig
	Plugins        []*config.PluginConfig
	Telemetry      selfTelemetry
	TLSConfig      selfTLS
	Version        selfVersion
	Files          []string
}

// selfTLS is the tls block under Nomad's names for it.
type selfTLS struct {
	EnableHTTP           bool
	EnableRPC            bool
	CAFile               string
	CertFile             string
	KeyFile              string
	VerifyServerHostname bool
	VerifyHTTPSClient    bool
}

type selfServerConfig struct {
	Enabled         bool
	BootstrapExpect int
	ServerJoin      selfServerJoin
}

type selfServerJoin struct {
	RetryJoin        []string
	StartJoin        []string
	RetryInterval    time.Duration
	RetryMaxAttempts int
}

type selfClientConfig struct {
	Enabled   bool
	Servers   []string
	NodeClass string
	NodePool  string
	Meta      map[string]string
	Options   map[string]string
	StateDir  string
	AllocDir  string
}

type selfTelemetry struct {
	CollectionInterval         time.Duration
	InMemoryCollectionInterval time.Duration
	InMemoryRetentionPeriod    time.Duration
	DisableHostname            bool
	PrometheusMetrics          bool
	PublishAllocationMetrics   bool
	PublishNodeMetrics         bool
	ServicePrefix              string
}

type selfVersion struct {
	Version           string
	VersionPrerelease string
	Revision          string
}

// agentMember is a server as /v1/agent/members and /v1/agent/self show it.
type agentMember struct {
	Name   string
	Addr   string
	Port   uint16
	Tags   map[string]string
	Status string
}

// serverMembers is the answer to GET /v1/agent/members.
type serverMembers struct {
	ServerName   string
	ServerRegion string
	ServerDC     string
	Members      []*agentMember
}

// agentSelfHandler serves GET /v1/agent/self.
func (s *HTTPServer) agentSelfHandler(w http.ResponseWriter, r *http.Request) (any, error) {
	self := &agentSelf{
		Config: s.selfConfig(),
		Member: s.selfMember(),
		Stats:  s.agentStats(),
	}
	if err := s.setLatestMeta(w); err != nil {
		return nil, err
	}
	return self, nil
}

func (s *HTTPServer) selfConfig() *selfConfig {
	c := s.agent.config
	plugins := make([]*config.PluginConfig, 0, len(c.Plugins))
	for _, name := range slices.Sorted(maps.Keys(c.Plugins)) {
		plugins = append(plugins, c.Plugins[name])
	}
	return &selfConfig{
		Region:         c.Region,
		Datacenter:     c.Datacenter,
		NodeName:       c.NodeName,
		DataDir:        c.DataDir,
		BindAddr:       c.BindAddr,
		LogLevel:       c.LogLevel,
		DevMode:        c.DevMode,
		Ports:          c.Ports,
		Addresses:      c.Addresses,
		AdvertiseAddrs: c.AdvertiseAddrs,
		Server: selfServerConfig{
			Enabled:         c.Server.Enabled,
			BootstrapExpect: c.Server.BootstrapExpect,
			ServerJoin: selfServerJoin{
				RetryJoin:        c.Server.RetryJoin,
				StartJoin:        c.Server.StartJoin,
				RetryInterval:    c.Server.RetryInterval,
				RetryMaxAttempts: c.Server.RetryMaxAttempts,
			},
		},
		Client: selfClientConfig{
			Enabled:   c.Client.Enabled,
			Servers:   c.Client.Servers,
			NodeClass: c.Client.NodeClass,
			NodePool:  c.Client.NodePool,
			Meta:      c.Client.Meta,
			Options:   c.Client.Options,
			StateDir:  c.Client.StateDir,
			AllocDir:  c.Client.AllocDir,
		},
		Plugins: plugins,
		Telemetry: selfTelemetry{
			CollectionInterval:         c.Telemetry.CollectionInterval,
			InMemoryCollectionInterval: c.Telemetry.InMemoryCollectionInterval(),
			InMemoryRetentionPeriod:    c.Telemetry.InMemoryRetention,
			DisableHostname:            c.Telemetry.DisableHostname,
			PrometheusMetrics:          c.Telemetry.PrometheusMetrics,
			PublishAllocationMetrics:   c.Telemetry.PublishAllocationMetrics,
			PublishNodeMetrics:         c.Telemetry.PublishNodeMetrics,
			ServicePrefix:              c.Telemetry.ServicePrefix,
		},
		TLSConfig: selfTLS{
			EnableHTTP:           c.TLS.HTTP,
			EnableRPC:            c.TLS.RPC,
			CAFile:               c.TLS.CAFile,
			CertFile:             c.TLS.CertFile,
			KeyFile:              c.TLS.KeyFile,
			VerifyServerHostname: c.TLS.VerifyServerHostname,
			VerifyHTTPSClient:    c.TLS.VerifyHTTPSClient,
		},
		Version: selfVersion{
			Version:           version.Version,
			VersionPrerelease: version.Prerelease,
			Revision:          version.GitCommit,
		},
		Files: c.Files,
	}
}

// selfMember is this agent as a cluster member. A client-only agent is no
// member of the server cluster; it shows its name and nothing else.
func (s *HTTPServer) selfMember() *agentMember {
	srv := s.agent.server
	if srv == nil {
		return &agentMember{Name: s.agent.config.NodeName, Tags: map[string]string{}}
	}
	for _, m := range srv.Members() {
		if m.ID == srv.NodeID() {
			return s.member(srv, m)
		}
	}
	return s.member(srv, membership.Member{
		ID:         srv.NodeID(),
		Name:       s.agent.config.NodeName + "." + s.agent.config.Region,
		Region:     s.agent.config.Region,
		Datacenter: s.agent.config.Datacenter,
		RPCAddr:    srv.RPCAdvertise(),
		Build:      version.Version,
		Status:     membership.StatusAlive,
	})
}

// member converts a server member to Nomad's member JSON, with the tags
// Nomad's servers carry.
func (s *HTTPServer) member(srv *nomad.Server, m membership.Member) *agentMember {
	host, portStr, err := net.SplitHostPort(m.RPCAddr)
	if err != nil {
		host = m.RPCAddr
	}
	port, _ := strconv.ParseUint(portStr, 10, 16)
	tags := map[string]string{
		"role":     "nomad",
		"region":   m.Region,
		"dc":       m.Datacenter,
		"build":    m.Build,
		"id":       m.ID,
		"port":     portStr,
		"rpc_addr": host,
		"expect":   strconv.Itoa(m.BootstrapExpect),
		"voter":    strconv.FormatBool(m.Voter),
		// Every server speaks the newest raft protocol the library has.
		"raft_vsn": strconv.Itoa(int(raft.ProtocolVersionMax)),
	}
	if m.BootstrapExpect == 1 {
		tags["bootstrap"] = "1"
	}
	if m.RPCAddr == srv.Leader() {
		tags["leader"] = "1"
	}
	return &agentMember{
		Name:   m.Name,
		Addr:   host,
		Port:   uint16(port),
		Tags:   tags,
		Status: m.Status,
	}
}

// agentStats are the figures /v1/agent/self shows, grouped as Nomad groups
// them. Every value is a string, as in Nomad's JSON.
func (s *HTTPServer) agentStats() map[string]map[string]string {
	stats := map[string]map[string]string{
		"runtime": {
			"arch":        runtime.GOARCH,
			"cpu_count":   strconv.Itoa(runtime.NumCPU()),
			"goroutines":  strconv.Itoa(runtime.NumGoroutine()),
			"kernel.name": runtime.GOOS,
			"max_procs":   strconv.Itoa(runtime.GOMAXPROCS(0)),
			"version":     runtime.Version(),
		},
	}
	if srv := s.agent.server; srv != nil {
		stats["nomad"] = map[string]string{
			"server":        "true",
			"leader":        strconv.FormatBool(srv.IsLeader()),
			"leader_addr":   srv.Leader(),
			"bootstrap":     strconv.FormatBool(s.agent.config.Server.BootstrapExpect == 1),
			"known_regions": "1",
		}
		stats["raft"] = srv.Raft().Stats()
	}
	if c := s.agent.client; c != nil {
		stats["client"] = c.Stats()
	}
	return stats
}

// agentMembers serves GET /v1/agent/members: the servers this agent's
// server knows of.
func (s *HTTPServer) agentMembers(w http.ResponseWriter, r *http.Request) (any, error) {
	srv, err := s.requireServer()
	if err != nil {
		return nil, err
	}
	members := srv.Members()
	out := &serverMembers{
		ServerName:   s.agent.config.NodeName,
		ServerRegion: s.agent.config.Region,
		ServerDC:     s.agent.config.Datacenter,
		Members:      make([]*agentMember, 0, len(members)),
	}
	for _, m := range members {
		out.Members = append(out.Members, s.member(srv, m))
	}
	if err := s.setLatestMeta(w); err != nil {
		return nil, err
	}
	return out, nil
}
