package command

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclparse"

	"github.com/drover-io/drover/api"
)

// A namespace specification file, as Nomad's namespace apply reads it.
// gohcl refuses any block or attribute not listed (vault, consul), naming
// it and where it is.
type fileNamespace struct {
	Name           string                     `hcl:"name"`
	Description    string                     `hcl:"description,optional"`
	Quota          string                     `hcl:"quota,optional"`
	Capabilities   *fileNamespaceCapabilities `hcl:"capabilities,block"`
	NodePoolConfig *fileNodePoolConfig        `hcl:"node_pool_config,block"`
	Meta           *fileNamespaceMeta         `hcl:"meta,block"`
	// TimeLimits is Drover's (namespace_time_limits.go).
	TimeLimits *fileNamespaceTimeLimits `hcl:"time_limits,block"`
}

type fileNamespaceCapabilities struct {
	EnabledTaskDrivers   []string `hcl:"enabled_task_drivers,optional"`
	DisabledTaskDrivers  []string `hcl:"disabled_task_drivers,optional"`
	EnabledNetworkModes  []string `hcl:"enabled_network_modes,optional"`
	DisabledNetworkModes []string `hcl:"disabled_network_modes,optional"`
}

type fileNodePoolConfig struct {
	Default string   `hcl:"default,optional"`
	Allowed []string `hcl:"allowed,optional"`
	Denied  []string `hcl:"denied,optional"`
}

type fileNamespaceMeta struct {
	Attrs hcl.Attributes `hcl:",remain"`
}

// parseNamespaceSpec reads a namespace specification, HCL or (for a name
// ending in .json) JSON.
func parseNamespaceSpec(src []byte, filename string) (*api.Namespace, error) {
	parser := hclparse.NewParser()
	var file *hcl.File
	var diags hcl.Diagnostics
	if strings.HasSuffix(filename, ".json") {
		file, diags = parser.ParseJSON(src, filename)
	} else {
		file, diags = parser.ParseHCL(src, filename)
	}
	if diags.HasErrors() {
		return nil, fmt.Errorf("parse namespace specification: %w", diags)
	}
	var fn fileNamespace
	if diags := gohcl.DecodeBody(file.Body, nil, &fn); diags.HasErrors() {
		return nil, fmt.Errorf("parse namespace specification: %w", diags)
	}
	ns := &api.Namespace{Name: fn.Name, Description: fn.Description, Quota: fn.Quota}
	if c := fn.Capabilities; c != nil {
		ns.Capabilities = &api.NamespaceCapabilities{
			EnabledTaskDrivers:   c.EnabledTaskDrivers,
			DisabledTaskDrivers:  c.DisabledTaskDrivers,
			EnabledNetworkModes:  c.EnabledNetworkModes,
			DisabledNetworkModes: c.DisabledNetworkModes,
		}
	}
	limits, err := fn.TimeLimits.timeLimits()
	if err != nil {
		return nil, err
	}
	ns.TimeLimits = limits
	if p := fn.NodePoolConfig; p != nil {
		ns.NodePoolConfiguration = &api.NamespaceNodePoolConfiguration{Default: p.Default, Allowed: p.Allowed, Denied: p.Denied}
	}
	if fn.Meta != nil {
		ns.Meta = map[string]string{}
		for key, attr := range fn.Meta.Attrs {
			var v string
			if diags := gohcl.DecodeExpression(attr.Expr, nil, &v); diags.HasErrors() {
				return nil, fmt.Errorf("parse namespace specification: %w", diags)
			}
			ns.Meta[key] = v
		}
	}
	return ns, nil
}
