package logentry

import (
	"fmt"

	nomadrpc "github.com/drover-io/drover/nomad/rpc"
)

// invalidf returns an ErrInvalidRequest error with the given message.
func invalidf(format string, args ...any) error {
	return nomadrpc.WithKind(nomadrpc.ErrInvalidRequest, fmt.Errorf(format, args...))
}
