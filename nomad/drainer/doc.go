// Package drainer drains nodes, on the leader: it migrates the service
// allocations off a draining node, lets its batch work finish, stops its
// system allocations once nothing else is left, and stops whatever still
// runs at the drain's deadline. A node with nothing left to drain ends
// its drain and stays ineligible.
//
// It reads the state and writes through the Cluster it is handed, which
// the server implements. It must not import package nomad or any of its
// other subpackages but the state store and logentry.
package drainer
