package command

import (
	"strings"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

func TestServerMembers_OneAliveLeader(t *testing.T) {
	_, addr := testAgent(t)
	code, out, errOut := runCLI(t, "", "server", "members", "-address", addr)
	must.Eq(t, 0, code, must.Sprint(errOut))
	lines := strings.Split(strings.TrimSpace(out), "\n")
	must.Len(t, 2, lines)
	must.Eq(t, []string{"Name", "Address", "Port", "Status", "Leader", "Raft", "Version", "Build", "Datacenter", "Region"},
		strings.Fields(lines[0]))
	fields := strings.Fields(lines[1])
	must.Eq(t, "cli-test.global", fields[0])
	must.Eq(t, "127.0.0.1", fields[1])
	must.Eq(t, "alive", fields[3])
	must.Eq(t, "true", fields[4])
	must.Eq(t, []string{"dc1", "global"}, fields[len(fields)-2:])
}

func TestMemberTable_LeaderByRPCAddress(t *testing.T) {
	member := func(name, ip, port string) *api.AgentMember {
		return &api.AgentMember{Name: name, Addr: ip, Port: 4647, Status: "alive", Tags: map[string]string{
			"rpc_addr": ip, "port": port, "build": "0.1.0", "dc": "dc1", "region": "global", "raft_vsn": "3",
		}}
	}
	members := []*api.AgentMember{member("s2.global", "10.0.0.2", "4647"), member("s1.global", "10.0.0.1", "4647")}
	want := "" +
		"Name       Address   Port  Status  Leader  Raft Version  Build  Datacenter  Region\n" +
		"s1.global  10.0.0.1  4647  alive   false   3             0.1.0  dc1         global\n" +
		"s2.global  10.0.0.2  4647  alive   true    3             0.1.0  dc1         global"
	must.Eq(t, want, memberTable(members, "10.0.0.2:4647", false))

	// Without a leader, no one leads.
	must.StrNotContains(t, memberTable(members, "", false), "true")
	must.StrContains(t, memberTable(members, "", true), "build=0.1.0,dc=dc1,port=4647")
}
