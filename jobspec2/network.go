package jobspec2

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/drover-io/drover/api"
)

var networkSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "mode"}, {Name: "hostname"}, {Name: "mbits"}},
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "port", LabelNames: []string{"label"}}, {Type: "dns"},
	},
}

var portSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "static"}, {Name: "to"}, {Name: "host_network"}},
}

var dnsSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "servers"}, {Name: "searches"}, {Name: "options"}},
}

// network decodes a group's network block. A port with a static value is
// one of Nomad's ReservedPorts, any other one of its DynamicPorts.
func (d *decoder) network(block *hcl.Block) *api.NetworkResource {
	content := d.content(block.Body, networkSchema)
	attrs := content.Attributes
	n := &api.NetworkResource{
		Mode:     d.stringValue(attrs["mode"]),
		Hostname: d.stringValue(attrs["hostname"]),
		MBits:    d.int(attrs["mbits"]),
	}
	if b := d.single(blocksOfType(content, "dns")); b != nil {
		dns := d.content(b.Body, dnsSchema).Attributes
		n.DNS = &api.DNSConfig{
			Servers:  d.strings(dns["servers"]),
			Searches: d.strings(dns["searches"]),
			Options:  d.strings(dns["options"]),
		}
	}
	seen := map[string]hcl.Range{}
	for _, pb := range blocksOfType(content, "port") {
		name := label(pb)
		if prev, dup := seen[name]; dup {
			d.add(errorAt(pb.DefRange, "Duplicate port",
				fmt.Sprintf("Port %q was already defined at %s.", name, d.at(prev))))
			continue
		}
		seen[name] = pb.DefRange
		pa := d.content(pb.Body, portSchema).Attributes
		p := api.Port{Label: name, HostNetwork: d.stringValue(pa["host_network"])}
		if to := d.int(pa["to"]); to != nil {
			p.To = *to
		}
		if static := d.int(pa["static"]); static != nil {
			p.Value = *static
			n.ReservedPorts = append(n.ReservedPorts, p)
			continue
		}
		n.DynamicPorts = append(n.DynamicPorts, p)
	}
	return n
}
