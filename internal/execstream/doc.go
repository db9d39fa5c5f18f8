// Package execstream is the wire protocol of an interactive command run in
// a task (`alloc exec`), as Nomad's API speaks it: a websocket whose
// messages are JSON frames.
//
// The caller sends input frames: {"stdin":{"data":<base64>}} for input,
// {"stdin":{"close":true}} at its end, {"tty_size":{"height":h,"width":w}}
// when its terminal changes size, and {} as a heartbeat. The agent sends
// output frames: {"stdout":{"data":...}}, {"stderr":{"data":...}}, {} as a
// heartbeat, and last {"exited":true,"result":{"exit_code":n}}, then a
// normal close. A failure is a close message whose text says what went
// wrong. A caller that cannot set headers (a browser) asks for
// ?ws_handshake=true and sends {"version":1,"auth_token":"..."} first.
//
// It owns both ends: Serve runs a command for the agent's HTTP handler and
// streams it over the socket, and RunClient drives a session for the Go
// client (package api) and the CLI. It knows nothing of tasks, drivers or
// ACLs: the handler resolves those, and hands Serve the function that runs
// the command.
package execstream
