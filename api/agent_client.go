package api

import "fmt"

// Agent is the handle on the endpoints of the agent the client talks to.
type Agent struct {
	client *Client
}

// Agent returns the handle on the agent endpoints.
func (c *Client) Agent() *Agent {
	return &Agent{client: c}
}

// Self describes the agent the client talks to.
func (a *Agent) Self() (*AgentSelf, error) {
	var self AgentSelf
	if _, err := a.client.query("/v1/agent/self", &self, nil); err != nil {
		return nil, err
	}
	return &self, nil
}

// Members lists the servers of the cluster the agent belongs to.
func (a *Agent) Members() (*ServerMembers, error) {
	var members ServerMembers
	if _, err := a.client.query("/v1/agent/members", &members, nil); err != nil {
		return nil, err
	}
	return &members, nil
}

// NodeName returns the agent's node name.
func (a *Agent) NodeName() (string, error) {
	self, err := a.Self()
	if err != nil {
		return "", err
	}
	if self.Member.Name != "" {
		return self.Member.Name, nil
	}
	// A client-only agent has no server membership; its configuration
	// still names it.
	return configString(self, "NodeName")
}

// Region returns the region the agent belongs to.
func (a *Agent) Region() (string, error) {
	self, err := a.Self()
	if err != nil {
		return "", err
	}
	return configString(self, "Region")
}

// Datacenter returns the datacenter the agent belongs to.
func (a *Agent) Datacenter() (string, error) {
	self, err := a.Self()
	if err != nil {
		return "", err
	}
	return configString(self, "Datacenter")
}

// configString returns a string setting of the agent's configuration.
func configString(self *AgentSelf, key string) (string, error) {
	v, ok := self.Config[key]
	if !ok {
		return "", fmt.Errorf("agent configuration has no %s", key)
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("agent configuration %s is %T, not a string", key, v)
	}
	return s, nil
}
