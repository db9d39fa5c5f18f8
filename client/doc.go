/*
Package client is the client half of a Drover agent: it fingerprints the
machine, registers it with the servers as a node and keeps it alive with
heartbeats, watches the allocations the servers place on it, runs each
one with an alloc runner, and reports their state back in batches.

The client reaches the servers through a ServerConn, in the agent's own
process when the agent runs a server too and over RPC otherwise.

# What it owns, and what it must not import

It owns the node's life as the servers see it (registration, heartbeats,
the node's metrics and the allocations' counters) and the set of alloc
runners: which allocations run here, when each is restored, updated,
garbage collected. It makes the one client/cni Manager of the node, which
gives allocations their network namespaces: it reports the network modes
the manager can set up as networks of the node, hands the manager to
every alloc runner, and at start tears down the namespaces of
allocations it no longer runs. How one allocation runs is
client/allocrunner's.

It imports drivers, structs, its own sub-packages and internal/; it must
not import the servers (nomad/, scheduler/), the HTTP API's wire types
(api/) or the agent (command/): the agent wires a client to a ServerConn,
never the other way round. TestClientImports holds the client tree to
this.
*/
package client
