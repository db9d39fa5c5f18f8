package unsupported

import (
	"slices"
	"sync"
)

// Reasons of the service blocks' fields.
const (
	reasonConsulOnly = "it is Consul's: Drover keeps services in its own catalog, which has no place for it"
	reasonCanary     = "Drover has no canaries, which alone would be registered with it"
)

// fields is the table: the job's fields, then those of the service blocks
// of groups and of tasks.
var fields = sync.OnceValue(func() []Field {
	return slices.Concat(jobFields,
		serviceFields("TaskGroups[].Services", true),
		serviceFields("TaskGroups[].Tasks[].Services", false))
})

// serviceFields lists the fields of Nomad's Service that Drover's lacks,
// at path; withHCL gives the rows their jobspec forms, which one of the
// two places carries (a form is in one row only).
func serviceFields(path string, withHCL bool) []Field {
	rows := []Field{
		{JSON: "CanaryTags", HCL: []string{"service.canary_tags"}, Decision: Warn, Reason: reasonCanary},
		{JSON: "CanaryMeta", HCL: []string{"service.canary_meta"}, Block: true, Decision: Warn, Reason: reasonCanary},
		{JSON: "EnableTagOverride", HCL: []string{"service.enable_tag_override"}, Decision: Warn,
			Reason: "only Consul's agents change a service's tags; nothing changes Drover's"},
		{JSON: "OnUpdate", HCL: []string{"service.on_update"}, Decision: Warn,
			Reason: "it tells deployments which checks count, and Drover's deployments judge health by task states, not by checks, yet"},
		{JSON: "Checks[].GRPCService", HCL: []string{"check.grpc_service"}, Decision: Refuse, Reason: "Drover runs http, tcp and script checks, not grpc"},
		{JSON: "Checks[].GRPCUseTLS", HCL: []string{"check.grpc_use_tls"}, Decision: Refuse, Reason: "Drover runs http, tcp and script checks, not grpc"},
		{JSON: "Checks[].Expose", HCL: []string{"check.expose"}, Decision: Refuse,
			Reason: "it exposes the check through Consul Connect's proxy, which Drover does not run"},
		{JSON: "Checks[].Advertise", HCL: []string{"check.advertise"}, Decision: Refuse, Reason: reasonConsulOnly},
		{JSON: "Checks[].Notes", HCL: []string{"check.notes"}, Decision: Warn, Reason: "a note shown in Consul's UI only"},
		{JSON: "Connect", HCL: []string{"service.connect"}, Block: true, Decision: Refuse, Present: true,
			Reason: "Consul Connect's sidecars and gateways would not run, nor the mesh its upstreams need"},
		{JSON: "TaggedAddresses", HCL: []string{"service.tagged_addresses"}, Block: true, Decision: Refuse, Reason: reasonConsulOnly},
		{JSON: "Identity", HCL: []string{"service.identity"}, Block: true, Decision: Refuse,
			Reason: "it asks for a Consul service identity token, which Drover does not sign"},
		{JSON: "Weights", HCL: []string{"service.weights"}, Block: true, Decision: Refuse, Reason: reasonConsulOnly},
		{JSON: "Cluster", HCL: []string{"service.cluster"}, Decision: Refuse, Reason: reasonConsulOnly, Default: `"default"`},
		{JSON: "Kind", HCL: []string{"service.kind"}, Decision: Refuse, Reason: reasonConsulOnly},
	}
	for i := range rows {
		rows[i].JSON = path + "[]." + rows[i].JSON
		if !withHCL {
			rows[i].HCL = nil
		}
	}
	return rows
}
