package cni

import "encoding/json"

// bridgePlugins are the plugins the bridge network runs, in order.
var bridgePlugins = []string{"bridge", "host-local", "firewall", "portmap"}

// bridgeConfList is the bridge network's configuration: Nomad's, under
// Drover's names. The loopback plugin is not in it: every namespace gets
// its loopback up when it is made.
func bridgeConfList(c Config) ([]byte, error) {
	type m = map[string]any
	return json.Marshal(m{
		"cniVersion": "0.4.0",
		"name":       c.BridgeName,
		"plugins": []m{
			{
				"type":         "bridge",
				"bridge":       c.BridgeName,
				"ipMasq":       true,
				"isGateway":    true,
				"forceAddress": true,
				"hairpinMode":  false,
				"ipam": m{
					"type":   "host-local",
					"ranges": [][]m{{{"subnet": c.BridgeSubnet}}},
					"routes": []m{{"dst": "0.0.0.0/0"}},
				},
			},
			{"type": "firewall", "backend": "iptables", "iptablesAdminChainName": AdminChain},
			{"type": "portmap", "capabilities": m{"portMappings": true}, "snat": true},
		},
	})
}
