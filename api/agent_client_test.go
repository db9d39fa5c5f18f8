package api

import (
	"testing"

	"github.com/shoenig/test/must"
)

// agentSelfReply is GET /v1/agent/self as a server agent answers it.
const agentSelfReply = `{
  "config": {"Region": "global", "Datacenter": "dc1", "NodeName": "laptop", "Version": {"Version": "0.1.0"}},
  "member": {"Name": "laptop.global", "Addr": "127.0.0.1", "Port": 4648, "Status": "alive",
             "Tags": {"region": "global", "dc": "dc1", "role": "nomad"}, "ProtocolCur": 2},
  "stats": {"nomad": {"leader": "true", "known_regions": "1"}, "raft": {"state": "Leader"}}
}`

// clientAgentSelfReply is the same for an agent that is only a client.
const clientAgentSelfReply = `{"config": {"Region": "eu", "Datacenter": "dc2", "NodeName": "worker-1"}, "member": {}, "stats": {}}`

func TestAgent_Endpoints(t *testing.T) {
	runEndpointCases(t, []endpointCase{
		{
			name:  "Self",
			reply: reply{body: agentSelfReply},
			call: func(t *testing.T, c *Client) {
				self, err := c.Agent().Self()
				must.NoError(t, err)
				must.Eq(t, "global", self.Config["Region"])
				must.Eq(t, "laptop.global", self.Member.Name)
				must.Eq(t, uint16(4648), self.Member.Port)
				must.Eq(t, "dc1", self.Member.Tags["dc"])
				must.Eq(t, "Leader", self.Stats["raft"]["state"])
			},
			want: wantRequest{method: "GET", path: "/v1/agent/self"},
		},
		{
			name: "Members",
			reply: reply{body: `{"ServerName":"laptop","ServerRegion":"global","ServerDC":"dc1",
				"Members":[{"Name":"laptop.global","Addr":"127.0.0.1","Port":4648,"Status":"alive","Tags":{"region":"global"}}]}`},
			call: func(t *testing.T, c *Client) {
				m, err := c.Agent().Members()
				must.NoError(t, err)
				must.Eq(t, "global", m.ServerRegion)
				must.Len(t, 1, m.Members)
				must.Eq(t, "alive", m.Members[0].Status)
			},
			want: wantRequest{method: "GET", path: "/v1/agent/members"},
		},
		{
			name:  "NodeName of a server",
			reply: reply{body: agentSelfReply},
			call: func(t *testing.T, c *Client) {
				name, err := c.Agent().NodeName()
				must.NoError(t, err)
				must.Eq(t, "laptop.global", name)
			},
			want: wantRequest{method: "GET", path: "/v1/agent/self"},
		},
		{
			name:  "NodeName of a client",
			reply: reply{body: clientAgentSelfReply},
			call: func(t *testing.T, c *Client) {
				name, err := c.Agent().NodeName()
				must.NoError(t, err)
				must.Eq(t, "worker-1", name)
			},
			want: wantRequest{method: "GET", path: "/v1/agent/self"},
		},
		{
			name:  "Region",
			reply: reply{body: clientAgentSelfReply},
			call: func(t *testing.T, c *Client) {
				region, err := c.Agent().Region()
				must.NoError(t, err)
				must.Eq(t, "eu", region)
			},
			want: wantRequest{method: "GET", path: "/v1/agent/self"},
		},
		{
			name:  "Datacenter",
			reply: reply{body: clientAgentSelfReply},
			call: func(t *testing.T, c *Client) {
				dc, err := c.Agent().Datacenter()
				must.NoError(t, err)
				must.Eq(t, "dc2", dc)
			},
			want: wantRequest{method: "GET", path: "/v1/agent/self"},
		},
	})
}

func TestAgent_ConfigWithoutSetting(t *testing.T) {
	cases := []struct {
		name, body, err string
	}{
		{"missing", `{"config":{}}`, "agent configuration has no Region"},
		{"not a string", `{"config":{"Region":7}}`, "agent configuration Region is float64, not a string"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newFakeAgent(t, reply{body: tc.body})
			_, err := c.Agent().Region()
			must.EqError(t, err, tc.err)
		})
	}
}
