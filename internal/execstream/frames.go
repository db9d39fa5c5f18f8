package execstream

// The frames, with Nomad's JSON names (github.com/hashicorp/nomad/api's
// ExecStreamingInput, ExecStreamingOutput and their parts).

// IOOperation is a piece of one stream: data, or its end.
type IOOperation struct {
	Data  []byte `json:"data,omitempty"`
	Close bool   `json:"close,omitempty"`
}

// TerminalSize is the caller's terminal, in characters.
type TerminalSize struct {
	Height int `json:"height,omitempty"`
	Width  int `json:"width,omitempty"`
}

// InputFrame is what the caller sends: at most one field is set, none in
// a heartbeat.
type InputFrame struct {
	Stdin   *IOOperation  `json:"stdin,omitempty"`
	TTYSize *TerminalSize `json:"tty_size,omitempty"`
}

// ExitResult is how the command ended.
type ExitResult struct {
	ExitCode int `json:"exit_code"`
}

// OutputFrame is what the agent sends: at most one of Stdout, Stderr and
// Result; Exited goes with Result; none in a heartbeat.
type OutputFrame struct {
	Stdout *IOOperation `json:"stdout,omitempty"`
	Stderr *IOOperation `json:"stderr,omitempty"`
	Exited bool         `json:"exited,omitempty"`
	Result *ExitResult  `json:"result,omitempty"`
}

// Handshake is the first frame of a caller that asked for one
// (?ws_handshake=true): the token it cannot send as a header.
type Handshake struct {
	Version   int    `json:"version"`
	AuthToken string `json:"auth_token"`
}

// HandshakeVersion is the one version of Handshake there is.
const HandshakeVersion = 1
