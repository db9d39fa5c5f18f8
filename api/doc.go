// Package api is Drover's Go client for its HTTP API and the wire types that
// travel over it.
//
// The field names and JSON encoding of every type here match the MPL-2.0
// module github.com/hashicorp/nomad/api, so that tools written for Nomad can
// talk to Drover. Optional user input is a pointer, so that "unset" and
// "zero" stay distinguishable until the server canonicalises the job.
// Durations travel as integer nanoseconds, as encoding/json writes a
// time.Duration.
//
// The client follows Nomad's HTTP API: NewClient(DefaultConfig()) reads
// DROVER_ADDR (or NOMAD_ADDR) and friends, and handles such as
// Client.Jobs, Client.Allocations and Client.Nodes wrap its endpoints. A read
// becomes a blocking query when QueryOptions.WaitIndex is set; it returns
// once the server's state passes that index or the wait time ends, and
// QueryOptions.WithContext cancels it early. A refusal from the agent is an
// UnexpectedResponseError carrying the agent's reason; IsNotFound tells
// "no such thing" apart from other failures.
//
// This package never imports server or client code.
package api
