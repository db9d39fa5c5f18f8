package agent

import (
	"encoding/json"
	"net"
	"strconv"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/version"
)

func TestAgentEndpoints_Self(t *testing.T) {
	a := testAgent(t)

	resp := get(t, a, "/v1/agent/self", nil)
	var raw map[string]json.RawMessage
	must.NoError(t, json.Unmarshal(resp.body, &raw))
	must.MapContainsKeys(t, raw, []string{"config", "member", "stats"})

	var self struct {
		Config map[string]any               `json:"config"`
		Member agentMember                  `json:"member"`
		Stats  map[string]map[string]string `json:"stats"`
	}
	must.NoError(t, json.Unmarshal(resp.body, &self))
	must.Eq[any](t, "global", self.Config["Region"])
	must.Eq[any](t, "dc1", self.Config["Datacenter"])
	must.Eq[any](t, "test-agent", self.Config["NodeName"])
	must.Eq[any](t, true, self.Config["DevMode"])
	must.Eq[any](t, true, self.Config["Server"].(map[string]any)["Enabled"])
	must.Eq[any](t, false, self.Config["Client"].(map[string]any)["Enabled"])
	must.Eq[any](t, version.Version, self.Config["Version"].(map[string]any)["Version"])

	host, port, err := net.SplitHostPort(a.Server().RPCAdvertise())
	must.NoError(t, err)
	must.Eq(t, "test-agent.global", self.Member.Name)
	must.Eq(t, host, self.Member.Addr)
	must.Eq(t, port, strconv.Itoa(int(self.Member.Port)))
	must.Eq(t, "alive", self.Member.Status)
	must.Eq(t, "nomad", self.Member.Tags["role"])
	must.Eq(t, "global", self.Member.Tags["region"])
	must.Eq(t, "dc1", self.Member.Tags["dc"])

	must.Eq(t, "true", self.Stats["nomad"]["server"])
	must.Eq(t, "true", self.Stats["nomad"]["leader"])
	must.MapContainsKey(t, self.Stats, "raft")
	must.MapContainsKey(t, self.Stats["runtime"], "goroutines")
}

func TestAgentEndpoints_Members(t *testing.T) {
	a := testAgent(t)

	var members serverMembers
	get(t, a, "/v1/agent/members", &members)
	must.Eq(t, "test-agent", members.ServerName)
	must.Eq(t, "global", members.ServerRegion)
	must.Eq(t, "dc1", members.ServerDC)
	must.Len(t, 1, members.Members)
	m := members.Members[0]
	must.Eq(t, "test-agent.global", m.Name)
	must.Eq(t, "alive", m.Status)
	must.Eq(t, "1", m.Tags["leader"])
	must.Eq(t, a.Server().NodeID(), m.Tags["id"])
	must.Eq(t, "3", m.Tags["raft_vsn"])
}
