package acl

import (
	"strings"
	"testing"

	"github.com/shoenig/test/must"
)

func TestParse_everyRule(t *testing.T) {
	p, err := Parse(`
namespace "default" {
  policy       = "read"
  capabilities = ["alloc-exec"]
}
namespace "prod-*" {
  capabilities = ["host-volume-create"]
  variables {
    path "app/*" { capabilities = ["read"] }
  }
}
host_volume "shared" { policy = "write" }
node_pool "gpu" { policy = "read" }
agent    { policy = "read" }
node     { policy = "write" }
operator { policy = "read" }
quota    { policy = "deny" }
plugin   { policy = "list" }
`)
	must.NoError(t, err)
	must.Len(t, 2, p.Namespaces)
	must.Eq(t, "default", p.Namespaces[0].Name)
	must.SliceContainsAll(t, p.Namespaces[0].Capabilities, append([]string{CapAllocExec}, readCapabilities...))
	must.SliceNotContains(t, p.Namespaces[0].Capabilities, CapSubmitJob)
	// host-volume-create brings host-volume-read with it.
	must.Eq(t, []string{CapHostVolumeCreate, CapHostVolumeRead}, p.Namespaces[1].Capabilities)
	must.Eq(t, []string{HostVolumeMountReadOnly, HostVolumeMountReadWrite}, p.HostVolumes[0].Capabilities)
	must.Eq(t, []string{NodePoolRead}, p.NodePools[0].Capabilities)
	must.Eq(t, "read", p.Agent)
	must.Eq(t, "write", p.Node)
	must.Eq(t, "deny", p.Quota)
	must.Eq(t, "list", p.Plugin)
	must.Eq(t, []string{OperatorLicenseRead}, p.Operator.Capabilities)
}

func TestParse_JSON(t *testing.T) {
	p, err := Parse(`{
  "namespace": {"default": {"policy": "write"}, "ops": {"capabilities": ["read-logs"]}},
  "node": {"policy": "read"}
}`)
	must.NoError(t, err)
	must.Len(t, 2, p.Namespaces)
	names := []string{p.Namespaces[0].Name, p.Namespaces[1].Name}
	must.SliceContainsAll(t, names, []string{"default", "ops"})
	must.Eq(t, "read", p.Node)
}

func TestParse_writeLeavesOutRootEquivalentCapabilities(t *testing.T) {
	p, err := Parse(`namespace "default" { policy = "write" }`)
	must.NoError(t, err)
	caps := p.Namespaces[0].Capabilities
	must.SliceContains(t, caps, CapSubmitJob)
	must.SliceContains(t, caps, CapReadLogs)
	must.SliceNotContains(t, caps, CapSubmitRawExec)
	must.SliceNotContains(t, caps, CapAllocNodeExec)
}

func TestParse_errors(t *testing.T) {
	cases := map[string]struct {
		rules string
		want  string
	}{
		"empty":                {"  \n", "policy has no rules"},
		"only comments":        {"# nothing\n", "policy has no rules"},
		"bad syntax":           {`namespace "x" {`, "parse policy"},
		"unknown block":        {`variables { }`, `Blocks of type "variables" are not expected here`},
		"unknown attribute":    {`namespace "x" { polcy = "read" }`, `"polcy" is not expected here`},
		"bad namespace name":   {`namespace "a b" { policy = "read" }`, `namespace "a b": a namespace rule's name`},
		"bad namespace policy": {`namespace "x" { policy = "admin" }`, `namespace "x": policy "admin" is not one of "deny", "read", "write", "scale"`},
		"bad capability":       {`namespace "x" { capabilities = ["read-job", "fly"] }`, `namespace "x": unknown capability "fly"`},
		"node without policy":  {`node { }`, `node rule: policy "" is not one of`},
		"node scale":           {`node { policy = "scale" }`, `node rule: policy "scale"`},
		"plugin policy":        {`plugin { policy = "admin" }`, `plugin rule: policy "admin" is not one of "deny", "read", "list", "write"`},
		"agent twice":          {"agent { policy = \"read\" }\nagent { policy = \"write\" }", "Duplicate agent block"},
		"host volume cap":      {`host_volume "v" { capabilities = ["mount"] }`, `host_volume "v": unknown capability "mount"`},
		"operator cap":         {`operator { capabilities = ["reboot"] }`, `operator rule: unknown capability "reboot"`},
		"variables no path":    {"namespace \"x\" {\n variables {}\n}", "variables block has no path blocks"},
		"variables bad path":   {"namespace \"x\" {\n variables {\n path \"/a\" { capabilities = [\"read\"] }\n }\n}", `variables path "/a" must be non-empty`},
		"too large":            {strings.Repeat("#", MaxRulesBytes+1), "the limit is"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Parse(tc.rules)
			must.ErrorContains(t, err, tc.want)
		})
	}
}

func TestParse_reportsEveryBadRule(t *testing.T) {
	_, err := Parse(`
namespace "a" { policy = "nope" }
node { policy = "nope" }
`)
	must.ErrorContains(t, err, `namespace "a"`)
	must.ErrorContains(t, err, "node rule")
}
