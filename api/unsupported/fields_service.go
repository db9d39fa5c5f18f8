package unsupported

import (
	"slices"
	"sync"
)

// Reasons of the service blocks' fields.
const (
	reasonConsulOnly = "it is Consul's: Drover keeps services in its own catalog, which has no place for it"
	reasonCanary     = "Drover has no canaries, which alone would be registered with it"
	reasonRestart    = "Drover runs no service checks yet: a failing check would not restart the task"
	reasonScript     = "Drover runs http and tcp checks only, not scripts in the task"
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
			Reason: "it tells deployments which checks count, and Drover runs no service checks yet: deployments judge health by task states"},
		{JSON: "CheckRestart", HCL: []string{"service.check_restart"}, Block: true, Decision: Refuse, Reason: reasonRestart},
		{JSON: "Checks[].CheckRestart", HCL: []string{"check.check_restart"}, Block: true, Decision: Refuse, Reason: reasonRestart},
		{JSON: "Checks[].Command", HCL: []string{"check.command"}, Decision: Refuse, Reason: reasonScript},
		{JSON: "Checks[].Args", HCL: []string{"check.args"}, Decision: Refuse, Reason: reasonScript},
		{JSON: "Checks[].TaskName", HCL: []string{"check.task"}, Decision: Refuse, Reason: reasonScript},
		{JSON: "Checks[].GRPCService", HCL: []string{"check.grpc_service"}, Decision: Refuse, Reason: "Drover runs http and tcp checks only, not grpc"},
		{JSON: "Checks[].GRPCUseTLS", HCL: []string{"check.grpc_use_tls"}, Decision: Refuse, Reason: "Drover runs http and tcp checks only, not grpc"},
		{JSON: "Checks[].Expose", HCL: []string{"check.expose"}, Decision: Refuse,
			Reason: "it exposes the check through Consul Connect's proxy, which Drover does not run"},
		{JSON: "Checks[].Advertise", HCL: []string{"check.advertise"}, Decision: Refuse, Reason: reasonConsulOnly},
		{JSON: "Checks[].SuccessBeforePassing", HCL: []string{"check.success_before_passing"}, Decision: Refuse, Reason: reasonConsulOnly},
		{JSON: "Checks[].FailuresBeforeCritical", HCL: []string{"check.failures_before_critical"}, Decision: Refuse, Reason: reasonConsulOnly},
		{JSON: "Checks[].FailuresBeforeWarning", HCL: []string{"check.failures_before_warning"}, Decision: Refuse, Reason: reasonConsulOnly},
		{JSON: "Checks[].Notes", HCL: []string{"check.notes"}, Decision: Warn, Reason: "a note shown in Consul's UI only"},
		{JSON: "Checks[].OnUpdate", HCL: []string{"check.on_update"}, Decision: Warn,
			Reason: "it tells deployments whether the check counts, and Drover runs no service checks yet: deployments judge health by task states"},
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
