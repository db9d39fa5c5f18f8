package structs

import "testing"

func TestValidate_networks(t *testing.T) {
	const at = `Task group "g": `
	cases := []struct {
		name string
		nets []*NetworkResource
		want []string
	}{
		{name: "host with ports", nets: []*NetworkResource{{
			Mode:          "host",
			ReservedPorts: []Port{{Label: "http", Value: 8080, To: 80}},
			DynamicPorts:  []Port{{Label: "prom-exporter"}, {Label: "admin", To: -1}},
			DNS:           &DNSConfig{Servers: []string{"1.1.1.1", "::1"}, Options: []string{"ndots:2"}},
		}}},
		{name: "mode left out", nets: []*NetworkResource{{DynamicPorts: []Port{{Label: "a"}}}}},
		{name: "two blocks", nets: []*NetworkResource{{}, {}},
			want: []string{at + "only one network block is allowed in a group, got 2"}},
		{name: "bridge", nets: []*NetworkResource{{Mode: "bridge", DynamicPorts: []Port{{Label: "http", To: 8080}}}}},
		{name: "none", nets: []*NetworkResource{{Mode: "none"}}},
		{name: "none with ports", nets: []*NetworkResource{{Mode: "none", DynamicPorts: []Port{{Label: "http"}}}},
			want: []string{at + `network mode "none" has only loopback: no port can be mapped to it, remove the port blocks`}},
		{name: "cni", nets: []*NetworkResource{{Mode: "cni/mynet"}}},
		{name: "cni without a name", nets: []*NetworkResource{{Mode: "cni/"}},
			want: []string{at + `network mode "cni/" must name a CNI network: "cni/<name>", the name one printable word without '/'`}},
		{name: "cni with a path", nets: []*NetworkResource{{Mode: "cni/../x"}},
			want: []string{at + `network mode "cni/../x" must name a CNI network: "cni/<name>", the name one printable word without '/'`}},
		{name: "unknown mode", nets: []*NetworkResource{{Mode: "overlay"}},
			want: []string{at + `network mode must be "host", "bridge", "none" or "cni/<name>", got "overlay"`}},
		{name: "hostname", nets: []*NetworkResource{{Hostname: "h"}},
			want: []string{at + `network hostname needs a UTS namespace per allocation, which Drover does not make yet: remove hostname`}},
		{name: "port values", nets: []*NetworkResource{{
			ReservedPorts: []Port{{Label: "zero"}, {Label: "big", Value: 70000}, {Label: "a", Value: 80}, {Label: "b", Value: 80}},
			DynamicPorts:  []Port{{Label: "a"}, {Label: "d", Value: 5}, {Label: "bad label"}, {Label: "", To: -2}},
		}}, want: []string{
			at + `network port "zero": static must be between 1 and 65535, got 0`,
			at + `network port "big": static must be between 1 and 65535, got 70000`,
			at + `network ports "a" and "b" both ask for static port 80`,
			at + `network port label "a" is used twice`,
			at + `network port "d": a dynamic port has no value, got 5`,
			at + `network port label "bad label" may hold only letters, digits, '_' and '-'`,
			at + `network port label must not be empty`,
			at + `network port "": to must be between -1 and 65535, got -2`,
		}},
		{name: "host_network", nets: []*NetworkResource{{DynamicPorts: []Port{{Label: "a", HostNetwork: "public"}}}},
			want: []string{at + `network port "a": host_network "public": Drover's clients have no host_network blocks, only the default network`}},
		{name: "dns", nets: []*NetworkResource{{DNS: &DNSConfig{Servers: []string{"dns.example"}, Searches: []string{"a b"}}}},
			want: []string{at + `network dns server "dns.example" is not an IP address`, at + `network dns search or option "a b" must be one printable word`}},
		{name: "too many ports", nets: []*NetworkResource{{DynamicPorts: make([]Port, MaxPortsPerNetwork+1)}},
			want: []string{at + `a network block may have at most 1000 ports, got 1001`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := validJob("service")
			group(j).Networks = tc.nets
			mustProblems(t, tc.want, j.Validate())
		})
	}
}

func TestValidate_dockerInNamespace(t *testing.T) {
	j := validJob("service")
	group(j).Networks = []*NetworkResource{{Mode: "bridge"}}
	group(j).Tasks[0].Driver = "docker"
	name := group(j).Tasks[0].Name
	mustProblems(t, []string{`Task group "g": task "` + name + `": docker tasks cannot join the group's network namespace (mode = "bridge") yet: use mode = "host", or the raw_exec or exec driver`}, j.Validate())
}
