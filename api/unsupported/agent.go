package unsupported

import "slices"

// AgentSetting is a setting of Nomad's agent configuration that Drover's
// agent has no use for. The agent accepts a file that sets it, as Nomad
// would, and logs a warning that names it: a Nomad configuration starts
// Drover unchanged, and nothing it says is dropped silently.
type AgentSetting struct {
	// Path is where the setting is written: "disable_update_check",
	// "ports.serf". Its first part is the enclosing block, if any.
	Path string
	// Labels is how many labels the setting takes when written as a
	// block, as `keyring "aead" { ... }` takes one.
	Labels int
	// Why says, in a few words, why Drover has no use for it.
	Why string
}

// Block returns the block the setting is written in ("" for the top of
// the file) and its name there.
func (s AgentSetting) Block() (block, name string) {
	for i := len(s.Path) - 1; i >= 0; i-- {
		if s.Path[i] == '.' {
			return s.Path[:i], s.Path[i+1:]
		}
	}
	return "", s.Path
}

// AgentSettings returns the table of Nomad agent settings Drover ignores.
func AgentSettings() []AgentSetting { return slices.Clone(agentSettings) }

// Reasons shared by several settings.
const (
	whySerf      = "Drover's servers find each other over their RPC port; there is no Serf gossip"
	whyLog       = "the agent logs to its standard output and error; a service manager keeps them"
	whyGC        = "Drover's garbage collection has no setting for it"
	whyRaft      = "Drover's raft has no setting for it"
	whyNetwork   = "Drover's clients offer one host address (no named host networks), and a bridge network without hairpin mode, Nomad's default"
	whyResources = "the client reads its resources from the machine"
)

var agentSettings = []AgentSetting{
	// The top of the file.
	{Path: "disable_update_check", Why: "Drover never checks for updates"},
	{Path: "disable_anonymous_signature", Why: "Drover never checks for updates"},
	{Path: "leave_on_interrupt", Why: "a server stops without leaving the cluster; a client is marked down by its missed heartbeats"},
	{Path: "leave_on_terminate", Why: "a server stops without leaving the cluster; a client is marked down by its missed heartbeats"},
	{Path: "enable_syslog", Why: whyLog},
	{Path: "syslog_facility", Why: whyLog},
	{Path: "log_json", Why: whyLog},
	{Path: "log_file", Why: whyLog},
	{Path: "log_rotate_bytes", Why: whyLog},
	{Path: "log_rotate_duration", Why: whyLog},
	{Path: "log_rotate_max_files", Why: whyLog},
	{Path: "log_include_location", Why: whyLog},
	{Path: "enable_debug", Why: "Drover serves no debug or profiling endpoints"},
	{Path: "plugin_dir", Why: "Drover's drivers are built in; it loads no plugin binaries"},
	{Path: "http_api_response_headers", Why: "the agent sets no extra headers on its answers"},
	{Path: "consul", Why: "Drover does not integrate with Consul: servers join by address, and no job's service is registered with Consul"},
	{Path: "vault", Why: "Drover does not integrate with Vault: jobs' vault blocks are refused"},
	{Path: "ui", Why: "Drover's web UI has no settings"},
	{Path: "audit", Why: "Drover has no audit log (Nomad Enterprise)"},
	{Path: "sentinel", Why: "Drover has no Sentinel policies (Nomad Enterprise)"},
	{Path: "autopilot", Why: "Drover has no autopilot"},
	{Path: "reporting", Why: "Drover reports no license utilisation (Nomad Enterprise)"},
	{Path: "keyring", Labels: 1, Why: "Drover's keyring is kept in raft, with no external key encryption provider"},

	{Path: "ports.serf", Why: whySerf},
	{Path: "addresses.serf", Why: whySerf},
	{Path: "advertise.serf", Why: whySerf},

	// The server block.
	{Path: "server.raft_protocol", Why: "Drover speaks raft protocol 3 only"},
	{Path: "server.raft_multiplier", Why: whyRaft},
	{Path: "server.raft_snapshot_threshold", Why: whyRaft},
	{Path: "server.raft_snapshot_interval", Why: whyRaft},
	{Path: "server.raft_trailing_logs", Why: whyRaft},
	{Path: "server.raft_boltdb", Why: whyRaft},
	{Path: "server.protocol_version", Why: "Drover has one RPC protocol"},
	{Path: "server.rejoin_after_leave", Why: "a server stays a member of the cluster when it stops, and takes its place again when it starts"},
	{Path: "server.non_voting_server", Why: "every Drover server votes (non-voting servers are Nomad Enterprise)"},
	{Path: "server.redundancy_zone", Why: "Drover has no autopilot redundancy zones (Nomad Enterprise)"},
	{Path: "server.upgrade_version", Why: "Drover has no autopilot upgrades (Nomad Enterprise)"},
	{Path: "server.authoritative_region", Why: "a Drover cluster is one region"},
	{Path: "server.license_path", Why: "Drover needs no license"},
	{Path: "server.enabled_schedulers", Why: "every server runs every scheduler"},
	{Path: "server.deployment_gc_threshold", Why: "Drover does not garbage-collect deployments yet: it keeps every one"},
	{Path: "server.csi_volume_claim_gc_interval", Why: "Drover has no CSI volumes"},
	{Path: "server.csi_volume_claim_gc_threshold", Why: "Drover has no CSI volumes"},
	{Path: "server.csi_plugin_gc_threshold", Why: "Drover has no CSI plugins"},
	{Path: "server.acl_token_gc_threshold", Why: whyGC},
	{Path: "server.root_key_gc_interval", Why: "Drover's keyring keeps a key until it is removed"},
	{Path: "server.root_key_gc_threshold", Why: "Drover's keyring keeps a key until it is removed"},
	{Path: "server.root_key_rotation_threshold", Why: "Drover's keyring rotates only when told to (operator root keyring rotate)"},
	{Path: "server.default_scheduler_config", Why: "Drover's schedulers have no configuration (binpacking, no preemption)"},
	{Path: "server.plan_rejection_tracker", Why: "Drover does not track plan rejections per node"},
	{Path: "server.search", Why: "Drover has no search API"},
	{Path: "server.deployment_query_rate_limit", Why: "the deployment watcher reads the state store directly, with no query to limit"},
	{Path: "server.failover_heartbeat_ttl", Why: "nodes heartbeat by the TTL their server gave them, also after a new leader is elected"},
	{Path: "server.job_default_priority", Why: "a job's priority defaults to 50"},
	{Path: "server.job_max_priority", Why: "a job's priority is 1 to 100"},
	{Path: "server.job_tracked_versions", Why: "Drover keeps the versions the job versions table holds, as it decides"},
	{Path: "server.start_timeout", Why: "a server starts without a deadline"},

	// The client block.
	{Path: "client.network_speed", Why: "Drover reserves no bandwidth, as Nomad no longer does"},
	{Path: "client.host_network", Labels: 1, Why: whyNetwork},
	{Path: "client.bridge_network_hairpin_mode", Why: whyNetwork},
	{Path: "client.preferred_address_family", Why: whyNetwork},
	{Path: "client.cpu_total_compute", Why: whyResources},
	{Path: "client.memory_total_mb", Why: whyResources},
	{Path: "client.disk_total_mb", Why: whyResources},
	{Path: "client.disk_free_mb", Why: whyResources},
	{Path: "client.reservable_cores", Why: whyResources},
	{Path: "client.cgroup_parent", Why: "Drover's drivers have no cgroup parent setting"},
	{Path: "client.gc_volumes_on_node_gc", Why: "Drover has no volumes"},
	{Path: "client.no_host_uuid", Why: "a Drover node's ID is random, never the host's UUID"},
	{Path: "client.disable_remote_exec", Why: "Drover has no alloc exec"},
	{Path: "client.max_kill_timeout", Why: "a task's kill_timeout is not capped by the client"},
	{Path: "client.template", Why: "Drover's template rendering has no client settings: function denylist, sandbox and Consul/Vault retries are fixed"},
	{Path: "client.drain_on_shutdown", Why: "a client does not drain itself when it stops"},
}
