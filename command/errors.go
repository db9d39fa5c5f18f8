package command

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"syscall"

	"github.com/drover-io/drover/api"
)

// apiErrorLine turns a failed call to the agent into the one line the user
// sees. When the agent could not be reached at all the line names its
// address, which is usually what is wrong, and, when nothing answered
// there (connection refused, no such host, no route), how to name
// another; otherwise it says what was being done, e.g. "Error querying
// job: Unexpected response code: 404 (job not found)".
func apiErrorLine(client *api.Client, doing string, err error) string {
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		line := fmt.Sprintf("Error connecting to Drover at %s: %v", client.Address(), urlErr.Err)
		if nothingThere(urlErr.Err) {
			line += "; is the agent running there? Name its HTTP address with DROVER_ADDR or -address"
		}
		return line
	}
	return fmt.Sprintf("Error %s: %v", doing, err)
}

// nothingThere reports whether err says that no agent could be dialled
// at the address, as opposed to one that answered badly (TLS, a timeout
// mid-request), where another address would not help.
func nothingThere(err error) bool {
	var dnsErr *net.DNSError
	var opErr *net.OpError
	switch {
	case errors.As(err, &dnsErr):
		return true
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return true
	case errors.As(err, &opErr) && opErr.Op == "dial" && opErr.Timeout():
		return true
	}
	return false
}
