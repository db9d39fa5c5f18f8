/*
Package template is the template language of a task's template blocks:
Go's text/template with the functions Nomad's users write (consul-template's
names and behaviour), the check of a template's functions when a job is
submitted, and one render of a template against a task's environment, its
files and Nomad variables. Writing the result, watching for changes and
acting on them are the task runner's (client/allocrunner/taskrunner).

# Why not consul-template itself

consul-template (MPL-2.0, v0.41.1 served here) was evaluated as a library
and not taken:

  - Weight: its template package pulls in Consul's, Vault's (with its
    Kubernetes auth) and an older Nomad api module (291 packages), and
    moves several of Drover's dependencies forward. Linked into drover
    with a template's Execute reachable it adds 6.1 MB (30.4 to 36.6 MB,
    CGO_ENABLED=0 -trimpath, measured on 3e50b9c), for functions Drover
    refuses; this package with the task runner's hook adds 0.57 MB.
  - Feeding it: its data comes from Dependency.Fetch over its own HTTP
    clients (a ClientSet for Consul, Vault and Nomad). Drover's variables
    are read over the servers' RPC with the task's workload identity;
    feeding its Brain by hand means writing its internal result types and
    its watch loop anyway.
  - Reach: env falls back to the agent's own environment, file reads any
    host path outside its sandbox setting, writeToFile writes host files
    and plugin runs host programs; each must be switched off by config and
    stay off as the library grows. Here only the functions written below
    exist, each bounded to the task.

So the engine is text/template with our own functions, under consul-template's
names. Functions.go lists them; Check refuses, at submit, a function that
needs a Consul server (key, service, ...) or a Vault server (secret, ...),
naming the missing agent block, and functions Drover does not have.

Nomad variables come from a VariableSource (variables.go): reads and
lists that can block until the data changes, so that the task runner can
re-render on a change.
*/
package template
