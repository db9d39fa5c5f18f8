// Package membership is the set of servers a server knows of: each
// member's identity and addresses, and whether this server reached it
// recently. A server learns of members from the members themselves
// (directly, which hearsay never overrides) and from the lists other
// servers send it while the cluster forms and on every member probe.
//
// It must not import package nomad or any of its other subpackages.
package membership
