// Package agent is the Drover agent process: the server and client it runs
// (Agent), the `drover agent` command, and the HTTP API handlers in front of
// them.
//
// What does not need a running Agent lives below it: the configuration in
// command/agent/config, the wire conversions between api/ and structs/ in
// command/agent/convert, and the HTTP server machinery in
// command/agent/httpserver. Those packages must never import this one.
package agent
