// Package structs is Drover's internal model of jobs, allocations,
// evaluations and nodes: the types the server stores and schedules, and the
// client runs. Unlike the wire types in package api, optional values here are
// plain values, filled in by canonicalisation, so the rest of the system
// never has to ask whether a field was set.
//
// Field names and JSON shapes match the wire types in package api, so the
// HTTP API serves these types as they are; only user input (a job being
// registered) is converted, from api to structs.
package structs
