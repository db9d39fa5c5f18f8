package unsupported

// Nomad's canonical defaults, as its client fills them in (its
// DefaultUpdateStrategy, DefaultMigrateStrategy and DefaultEphemeralDisk;
// durations in nanoseconds). The package's tests hold them to Nomad's.
const (
	defaultMigrate = `{"MaxParallel":1,"HealthCheck":"checks","MinHealthyTime":10000000000,"HealthyDeadline":300000000000}`
)

// Reasons shared by several fields.
const (
	reasonMigrate    = "a node drain would not pace the allocations it moves"
	reasonConsul     = "it configures Consul for services and templates only, which Drover refuses"
	reasonRender     = "Drover renders a task's templates before each of its runs, whatever it says"
	reasonScaling    = "only an external autoscaler acts on it; the group runs its count either way"
	reasonIdentities = "Drover signs the default identity only (Task.Identity, an identity block without a name): the task would not get the tokens of the named identities it asks for"
)

// jobFields is the table but for the service blocks' fields
// (fields_service.go). Each Nomad job field Drover's job has no place for
// is here (the tests compare with Nomad's job type), with every jobspec
// form it has.
var jobFields = []Field{
	// The job.
	{JSON: "Migrate", HCL: []string{"job.migrate"}, Block: true, Decision: Refuse, Reason: reasonMigrate, Default: defaultMigrate},
	{JSON: "Multiregion", HCL: []string{"job.multiregion"}, Block: true, Decision: Refuse,
		Reason: "the job would run in this region only"},
	{JSON: "UI", HCL: []string{"job.ui"}, Block: true, Decision: Warn,
		Reason: "only Nomad's web UI shows it: a description and links"},
	{JSON: "ConsulNamespace", Decision: Warn, Reason: reasonConsul},
	{JSON: "VaultNamespace", Decision: Warn,
		Reason: "it scopes vault blocks only, which Drover refuses"},
	{JSON: "NomadTokenID", Decision: Warn,
		Reason: "the server sets it; a submitted value is not used"},
	{JSON: "VersionTag", Decision: Warn,
		Reason: "a label on a job version: it changes nothing that runs"},

	// The group.
	{JSON: "TaskGroups[].Migrate", HCL: []string{"group.migrate"}, Block: true, Decision: Refuse, Reason: reasonMigrate, Default: defaultMigrate},
	{JSON: "TaskGroups[].Networks[].CNI", HCL: []string{"network.cni"}, Block: true, Decision: Refuse,
		Reason: "its arguments go to CNI plugins, and Drover runs host networking only"},
	{JSON: "TaskGroups[].Networks[].ReservedPorts[].IgnoreCollision", HCL: []string{"port.ignore_collision"}, Decision: Refuse,
		Reason: "Drover never gives two allocations the same port on a node"},
	{JSON: "TaskGroups[].Networks[].DynamicPorts[].IgnoreCollision", Decision: Refuse,
		Reason: "Drover never gives two allocations the same port on a node"},
	// A task's network block (resources { network }) is written as the
	// group's; its jobspec forms are those above.
	{JSON: "TaskGroups[].Tasks[].Resources.Networks[].CNI", Decision: Refuse,
		Reason: "its arguments go to CNI plugins, and Drover runs host networking only"},
	{JSON: "TaskGroups[].Tasks[].Resources.Networks[].ReservedPorts[].IgnoreCollision", Decision: Refuse,
		Reason: "Drover never gives two allocations the same port on a node"},
	{JSON: "TaskGroups[].Tasks[].Resources.Networks[].DynamicPorts[].IgnoreCollision", Decision: Refuse,
		Reason: "Drover never gives two allocations the same port on a node"},
	{JSON: "TaskGroups[].EphemeralDisk.Sticky", HCL: []string{"ephemeral_disk.sticky"}, Decision: Refuse,
		Reason: "a replacement allocation would not be placed on the previous one's node, nor get its data"},
	{JSON: "TaskGroups[].EphemeralDisk.Migrate", HCL: []string{"ephemeral_disk.migrate"}, Decision: Refuse,
		Reason: "a replacement allocation on another node would not get the previous one's data"},
	{JSON: "TaskGroups[].Disconnect", HCL: []string{"group.disconnect"}, Block: true, Decision: Refuse,
		Reason: "allocations on a disconnected node would be replaced and stopped on Drover's terms, not the ones it sets"},
	{JSON: "TaskGroups[].StopAfterClientDisconnect", HCL: []string{"group.stop_after_client_disconnect"}, Decision: Refuse,
		Reason: "allocations on a disconnected node would not stop when it says"},
	{JSON: "TaskGroups[].MaxClientDisconnect", HCL: []string{"group.max_client_disconnect"}, Decision: Refuse,
		Reason: "allocations on a disconnected node would be replaced at once, not after the time it allows"},
	{JSON: "TaskGroups[].PreventRescheduleOnLost", HCL: []string{"group.prevent_reschedule_on_lost"}, Decision: Refuse,
		Reason: "lost allocations would be replaced although it asks not to"},
	{JSON: "TaskGroups[].Scaling", HCL: []string{"group.scaling"}, Block: true, Decision: Warn, Reason: reasonScaling},
	{JSON: "TaskGroups[].Consul", HCL: []string{"group.consul"}, Block: true, Decision: Warn, Reason: reasonConsul},
	{JSON: "TaskGroups[].RestartPolicy.RenderTemplates", HCL: []string{"restart.render_templates"}, Decision: Warn, Reason: reasonRender},

	// The task.
	{JSON: "TaskGroups[].Tasks[].Templates[].VaultGrace", HCL: []string{"template.vault_grace"}, Decision: Warn,
		Reason: "Nomad itself has ignored it since 0.12"},
	{JSON: "TaskGroups[].Tasks[].Templates[].ChangeScript.RunOnFirstRender", HCL: []string{"change_script.run_on_first_render"}, Decision: Refuse, Default: "false",
		Reason: "the change script would not run after the first render, only after a change"},
	{JSON: "TaskGroups[].Tasks[].Vault", HCL: []string{"task.vault", "group.vault", "job.vault"}, Block: true, Decision: Refuse,
		Reason: "the task would run without its Vault token and secrets"},
	{JSON: "TaskGroups[].Tasks[].Secrets", HCL: []string{"task.secret"}, Block: true, Decision: Refuse,
		Reason: "the secrets it fetches for the task would not exist"},
	{JSON: "TaskGroups[].Tasks[].Identities", Decision: Refuse, Reason: reasonIdentities},
	{JSON: "TaskGroups[].Tasks[].Identity.ChangeMode", HCL: []string{"identity.change_mode"}, Decision: Refuse,
		Reason: "Drover renews the token file in place and neither restarts nor signals the task for it"},
	{JSON: "TaskGroups[].Tasks[].Identity.ChangeSignal", HCL: []string{"identity.change_signal"}, Decision: Refuse,
		Reason: "Drover renews the token file in place and sends the task no signal for it"},
	{JSON: "TaskGroups[].Tasks[].Identity.Filepath", HCL: []string{"identity.filepath"}, Decision: Refuse,
		Reason: "the token would be written to secrets/nomad_token, not where it says"},
	{JSON: "TaskGroups[].Tasks[].Identity.ServiceName", HCL: []string{"identity.service_name"}, Decision: Refuse,
		Reason: "it names a service identity, which only Consul takes, and Drover signs none"},
	{JSON: "TaskGroups[].Tasks[].Identity.ExtraClaims", HCL: []string{"identity.extra_claims"}, Decision: Refuse,
		Reason: "the token would not carry the claims it adds"},
	{JSON: "TaskGroups[].Tasks[].CSIPluginConfig", HCL: []string{"task.csi_plugin"}, Block: true, Decision: Refuse,
		Reason: "the task would not be registered as the CSI plugin it is"},
	{JSON: "TaskGroups[].Tasks[].Schedule", HCL: []string{"task.schedule"}, Block: true, Decision: Refuse,
		Reason: "the task would run at all times, not in the time windows it sets"},
	{JSON: "TaskGroups[].Tasks[].Consul", HCL: []string{"task.consul"}, Block: true, Decision: Warn, Reason: reasonConsul},
	{JSON: "TaskGroups[].Tasks[].ScalingPolicies", HCL: []string{"task.scaling"}, Block: true, Decision: Warn,
		Reason: "only an external autoscaler acts on it (dynamic application sizing)"},
	{JSON: "TaskGroups[].Tasks[].Actions", HCL: []string{"task.action"}, Block: true, Decision: Warn,
		Reason: "an action runs only when someone invokes it; the task runs the same"},
	{JSON: "TaskGroups[].Tasks[].Kind", HCL: []string{"task.kind"}, Decision: Warn,
		Reason: "it marks tasks of Consul Connect, whose services Drover refuses"},
	{JSON: "TaskGroups[].Tasks[].RestartPolicy.RenderTemplates", Decision: Warn, Reason: reasonRender},
	{JSON: "TaskGroups[].Tasks[].LogConfig.Enabled", HCL: []string{"logs.enabled"}, Decision: Warn,
		Reason: "the task runs the same; Drover keeps its logs unless logs { disabled = true }"},
	{JSON: "TaskGroups[].Tasks[].Resources.Devices", HCL: []string{"resources.device"}, Block: true, Decision: Refuse,
		Reason: "the task would be placed without the devices (GPUs, ...) it asks for"},
	{JSON: "TaskGroups[].Tasks[].Resources.NUMA", HCL: []string{"resources.numa"}, Block: true, Decision: Refuse,
		Reason: "the task would be placed without the NUMA affinity it asks for"},
	{JSON: "TaskGroups[].Tasks[].Resources.SecretsMB", HCL: []string{"resources.secrets"}, Decision: Warn,
		Reason: "it sizes an in-memory secrets directory; Drover's is a plain directory, and the task runs the same"},
	{JSON: "TaskGroups[].Tasks[].Resources.IOPS", HCL: []string{"resources.iops"}, Decision: Warn,
		Reason: "Nomad itself has ignored it since 0.9"},
}
