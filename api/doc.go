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
// This package never imports server or client code.
package api
