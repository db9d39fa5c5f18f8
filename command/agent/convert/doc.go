// Package convert translates between the wire types of the HTTP API
// (github.com/drover-io/drover/api, Nomad's JSON shapes) and the model in
// structs: a submitted job into a structs.Job, and jobs, allocations,
// evaluations, nodes, plans, ACL objects and events back into what the API
// answers. The conversions copy: what they return shares no memory with
// what they were given.
//
// A conversion neither validates nor answers HTTP: an input it must refuse
// comes back as a plain error, which the caller answers as a bad request.
// It must not import command/agent or its other subpackages, nor net/http.
package convert
