package api

// AgentSelf is what GET /v1/agent/self says about the agent that answers.
type AgentSelf struct {
	// Config is the agent's effective configuration, with names as the
	// agent's configuration struct spells them ("Region", "Datacenter",
	// "NodeName", ...).
	Config map[string]any `json:"config"`
	// Member is the agent's own entry in the server membership, empty on an
	// agent that is only a client.
	Member AgentMember `json:"member"`
	// Stats holds counters per subsystem ("nomad", "raft", "client", ...).
	Stats map[string]map[string]string `json:"stats"`
}

// AgentMember is one server of the cluster, as the membership sees it.
type AgentMember struct {
	Name        string
	Addr        string
	Port        uint16
	Tags        map[string]string
	Status      string
	ProtocolMin uint8
	ProtocolMax uint8
	ProtocolCur uint8
	DelegateMin uint8
	DelegateMax uint8
	DelegateCur uint8
}

// ServerMembers is the answer to GET /v1/agent/members.
type ServerMembers struct {
	ServerName   string
	ServerRegion string
	ServerDC     string
	Members      []*AgentMember
}
