package command

import (
	"cmp"
	"fmt"
	"maps"
	"net"
	"slices"
	"strings"

	"github.com/drover-io/drover/api"
)

// ServerMembersCommand lists the servers of the cluster.
type ServerMembersCommand struct{ Meta }

func (c *ServerMembersCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover server members [options]

  Lists the servers the agent's server knows of: their address, whether
  they are alive, which one leads, and their build, datacenter and region.
` + clientOptionsHelp + `
Server Members Options:

  -verbose
    Also show every server's tags.
`)
}

func (c *ServerMembersCommand) Synopsis() string {
	return "Display a list of known servers and their status"
}

func (c *ServerMembersCommand) Run(args []string) int {
	var verbose bool
	fs := c.ClientFlagSet("server members")
	fs.BoolVar(&verbose, "verbose", false, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 0 {
		return usageError(c.Ui, "server members", "This command takes no arguments")
	}
	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	members, err := client.Agent().Members()
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "querying servers", err))
		return exitError
	}
	// A cluster without a leader still has members worth listing: they
	// simply all show Leader = false.
	leader, _ := client.Status().Leader()
	c.Ui.Output(memberTable(members.Members, leader, verbose))
	return exitOK
}

// memberTable lists servers by name. leader is the leader's RPC address,
// which a member's rpc_addr and port tags are compared to.
func memberTable(members []*api.AgentMember, leader string, verbose bool) string {
	members = slices.Clone(members)
	slices.SortFunc(members, func(a, b *api.AgentMember) int { return cmp.Compare(a.Name, b.Name) })
	header := "Name|Address|Port|Status|Leader|Raft Version|Build|Datacenter|Region"
	if verbose {
		header += "|Tags"
	}
	rows := []string{header}
	for _, m := range members {
		isLeader := leader != "" && net.JoinHostPort(m.Tags["rpc_addr"], m.Tags["port"]) == leader
		row := fmt.Sprintf("%s|%s|%d|%s|%t|%s|%s|%s|%s",
			m.Name, m.Addr, m.Port, m.Status, isLeader, orNone(m.Tags["raft_vsn"]),
			orNone(m.Tags["build"]), orNone(m.Tags["dc"]), orNone(m.Tags["region"]))
		if verbose {
			row += "|" + formatTags(m.Tags)
		}
		rows = append(rows, row)
	}
	return formatList(rows)
}

// formatTags shows tags as "k=v" pairs in key order.
func formatTags(tags map[string]string) string {
	pairs := make([]string, 0, len(tags))
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		pairs = append(pairs, k+"="+tags[k])
	}
	return strings.Join(pairs, ",")
}
