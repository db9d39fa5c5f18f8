package api

import "time"

// Origins a log or file stream's offset counts from.
const (
	OriginStart = "start"
	OriginEnd   = "end"
)

// AllocFileInfo describes one file in an allocation's directory.
type AllocFileInfo struct {
	Name        string
	IsDir       bool
	Size        int64
	FileMode    string
	ModTime     time.Time
	ContentType string
}

// StreamFrame is one frame of a framed file or log stream. Data travels
// base64-encoded in JSON, as encoding/json writes a []byte.
type StreamFrame struct {
	// Offset is where in File the frame's Data ends.
	Offset int64  `json:",omitempty"`
	Data   []byte `json:",omitempty"`
	File   string `json:",omitempty"`
	// FileEvent reports a change to the file, such as "file deleted" or
	// "file truncated", instead of data.
	FileEvent string `json:",omitempty"`
}

// IsHeartbeat reports whether the frame only keeps the connection alive.
func (f *StreamFrame) IsHeartbeat() bool {
	return f.Offset == 0 && len(f.Data) == 0 && f.File == "" && f.FileEvent == ""
}
