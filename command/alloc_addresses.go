package command

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/drover-io/drover/api"
)

// allocAddresses is alloc status's "Allocation Addresses" section, as
// Nomad prints it: each port's label, whether the scheduler picked it,
// and the host address, with the port it maps to where it has a to.
// Empty for an allocation without ports.
func allocAddresses(alloc *api.Allocation) string {
	ar := alloc.AllocatedResources
	if ar == nil || len(ar.Shared.Networks) == 0 {
		return ""
	}
	rows := []string{"Label|Dynamic|Address"}
	for _, n := range ar.Shared.Networks {
		if n == nil {
			continue
		}
		for _, p := range n.ReservedPorts {
			rows = append(rows, addressRow(n.IP, p, "no"))
		}
		for _, p := range n.DynamicPorts {
			rows = append(rows, addressRow(n.IP, p, "yes"))
		}
	}
	if len(rows) == 1 {
		return ""
	}
	return "\n\nAllocation Addresses:\n" + formatList(rows)
}

func addressRow(ip string, p api.Port, dynamic string) string {
	addr := ip + ":" + strconv.Itoa(p.Value)
	if p.To > 0 && p.To != p.Value {
		addr += fmt.Sprintf(" -> %d", p.To)
	}
	return strings.Join([]string{oneLineText(p.Label), dynamic, addr}, "|")
}
