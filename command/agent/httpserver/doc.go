// Package httpserver is the machinery of the agent's HTTP API, apart from
// its handlers: the server and its route table type (Route, Access), the
// dispatch that checks each caller before a handler runs, the caps on
// request bodies and the exemptions from timeouts, the query parameters
// and response headers of Nomad's API, how errors map to status codes,
// and the listeners that bound connections per client and TLS handshakes.
//
// The route table itself, and what each Access means for a token, are the
// agent's: it hands the routes to Server.Handle and checks callers in its
// AuthorizeFunc. This package must not import command/agent (which
// imports it) nor command/agent/convert: it knows nothing of what a
// handler answers.
package httpserver
