package unsupported

import "slices"

// Route is an HTTP route of Nomad's that Drover's agent does not serve.
// Path parameters are written ":name". The documentation's tests hold
// the list to the routes the agent registers: a route it serves cannot
// stay here.
type Route struct {
	Method, Path string
	// Area groups the routes on the documentation page.
	Area string
}

// Command is a command of Nomad's CLI that Drover's does not have. A
// group ("acl") stands for all its subcommands while Drover has none of
// them. The documentation's tests hold the list to the CLI's commands.
type Command struct {
	Name  string
	Group bool
	What  string
}

// Driver is a task driver of Nomad's that Drover does not have.
type Driver struct {
	Name string
	What string
}

// Routes returns Nomad's routes that Drover does not serve.
func Routes() []Route { return slices.Clone(routes) }

// Commands returns Nomad's commands that Drover does not have.
func Commands() []Command { return slices.Clone(commands) }

// Drivers returns Nomad's drivers that Drover does not have.
func Drivers() []Driver { return slices.Clone(drivers) }

var routes = []Route{
	{"GET", "/v1/acl/roles", "ACL"},
	{"GET", "/v1/acl/auth-methods", "ACL"},
	{"GET", "/v1/acl/binding-rules", "ACL"},
	{"POST", "/v1/acl/auth-method", "ACL"},
	{"POST", "/v1/acl/identity/client-introduction-token", "ACL"},
	{"POST", "/v1/acl/login", "ACL"},

	{"GET", "/v1/allocation/:id/services", "Allocations"},
	{"GET", "/v1/client/fs/readat/:id", "Client"},
	{"GET", "/v1/client/fs/stream/:id", "Client"},
	{"GET", "/v1/client/metadata", "Client"},
	{"GET", "/v1/client/identity", "Client"},
	{"POST", "/v1/client/identity/renew", "Client"},

	{"POST", "/v1/deployment/unblock/:id", "Deployments"},

	{"DELETE", "/v1/evaluations", "Evaluations"},
	{"GET", "/v1/evaluations/count", "Evaluations"},

	{"POST", "/v1/job/:id/stable", "Jobs"},
	{"GET", "/v1/job/:id/scale", "Jobs"},
	{"POST", "/v1/job/:id/scale", "Jobs"},
	{"GET", "/v1/job/:id/services", "Jobs"},
	{"GET", "/v1/job/:id/submission", "Jobs"},
	{"POST", "/v1/job/:id/action", "Jobs"},
	{"PUT", "/v1/job/:id/versions/:version/tag", "Jobs"},
	{"GET", "/v1/jobs/statuses", "Jobs"},

	{"GET", "/v1/node/pools", "Node pools"},
	{"GET", "/v1/node/pool/:name", "Node pools"},
	{"POST", "/v1/node/pool/:name", "Node pools"},
	{"DELETE", "/v1/node/pool/:name", "Node pools"},
	{"GET", "/v1/node/pool/:name/jobs", "Node pools"},
	{"GET", "/v1/node/pool/:name/nodes", "Node pools"},

	{"GET", "/v1/operator/raft/configuration", "Operator"},
	{"DELETE", "/v1/operator/raft/peer", "Operator"},
	{"GET", "/v1/operator/autopilot/configuration", "Operator"},
	{"GET", "/v1/operator/autopilot/health", "Operator"},
	{"GET", "/v1/operator/scheduler/configuration", "Operator"},
	{"POST", "/v1/operator/scheduler/configuration", "Operator"},

	{"GET", "/v1/plugins", "CSI plugins and volumes"},
	{"GET", "/v1/plugin/csi/:id", "CSI plugins and volumes"},
	{"GET", "/v1/volumes", "CSI plugins and volumes"},
	{"GET", "/v1/volume/csi/:id", "CSI plugins and volumes"},

	{"GET", "/v1/scaling/policies", "Scaling policies"},
	{"GET", "/v1/scaling/policy/:id", "Scaling policies"},

	{"POST", "/v1/search", "Search"},
	{"POST", "/v1/search/fuzzy", "Search"},

	{"PUT", "/v1/agent/join", "Agent"},
	{"PUT", "/v1/agent/force-leave", "Agent"},
	{"GET", "/v1/agent/servers", "Agent"},
	{"PUT", "/v1/agent/servers", "Agent"},
	{"GET", "/v1/agent/host", "Agent"},
	{"GET", "/v1/agent/monitor", "Agent"},
	{"GET", "/v1/agent/pprof/profile", "Agent"},
	{"GET", "/v1/agent/pprof/heap", "Agent"},
	{"GET", "/v1/agent/pprof/trace", "Agent"},
	{"GET", "/v1/agent/schedulers", "Agent"},
	{"GET", "/v1/agent/schedulers/config", "Agent"},
	{"POST", "/v1/agent/schedulers/config", "Agent"},
}

var commands = []Command{
	{Name: "acl policy self", What: "the policies of a workload identity"},
	{Name: "acl role", Group: true, What: "ACL roles"},
	{Name: "acl auth-method", Group: true, What: "SSO auth methods"},
	{Name: "acl binding-rule", Group: true, What: "auth method binding rules"},
	{Name: "alloc fs", What: "read an allocation's files (the HTTP API serves them)"},
	{Name: "agent-info", What: "the agent's information (GET /v1/agent/self serves it)"},
	{Name: "config", Group: true, What: "validate agent configuration files"},
	{Name: "eval list", What: "list evaluations"},
	{Name: "eval delete", What: "delete evaluations"},
	{Name: "fmt", What: "format HCL files"},
	{Name: "job eval", What: "force an evaluation of a job"},
	{Name: "job promote", What: "promote canaries"},
	{Name: "job revert", What: "revert to an earlier version"},
	{Name: "job scale", What: "change a group's count"},
	{Name: "job scaling-events", What: "a job's scaling events"},
	{Name: "job tag", What: "tag a job version"},
	{Name: "job action", What: "run a task's action"},
	{Name: "license", Group: true, What: "Nomad Enterprise licenses"},
	{Name: "login", What: "log in through an auth method"},
	{Name: "monitor", What: "stream the agent's logs"},
	{Name: "namespace inspect", What: "a namespace as JSON (namespace status -json shows it)"},
	{Name: "node config", What: "a client's configuration"},
	{Name: "node meta", What: "a node's dynamic metadata"},
	{Name: "node pool", Group: true, What: "node pools"},
	{Name: "operator api", What: "call the HTTP API"},
	{Name: "operator autopilot", Group: true, What: "autopilot"},
	{Name: "operator debug", What: "collect a debug bundle"},
	{Name: "operator raft", Group: true, What: "raft peers and state"},
	{Name: "operator scheduler", Group: true, What: "the scheduler's configuration"},
	{Name: "plugin", Group: true, What: "CSI plugins"},
	{Name: "quota", Group: true, What: "resource quotas (Enterprise)"},
	{Name: "scaling", Group: true, What: "scaling policies"},
	{Name: "sentinel", Group: true, What: "Sentinel policies (Enterprise)"},
	{Name: "server force-leave", What: "remove a failed server"},
	{Name: "server join", What: "join servers (the server_join block does)"},
	{Name: "setup", Group: true, What: "set up Consul and Vault for Nomad"},
	{Name: "volume", Group: true, What: "CSI and dynamic host volumes (static host volumes come from the client's host_volume blocks)"},
}

var drivers = []Driver{
	{Name: "qemu", What: "virtual machines"},
	{Name: "podman", What: "Podman containers (an external plugin in Nomad): Drover's clients have no Podman engine to run them; the docker driver runs the same images"},
}
