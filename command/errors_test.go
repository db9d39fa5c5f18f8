package command

import (
	"crypto/x509"
	"errors"
	"net"
	"net/url"
	"os"
	"syscall"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

// TestAPIErrorLine: an agent that cannot be reached is named by the
// address tried, and, when nothing answers there, the line says how to
// name another; an agent that answered badly gets no such advice.
func TestAPIErrorLine(t *testing.T) {
	client, err := api.NewClient(&api.Config{Address: "http://127.0.0.2:5646"})
	must.NoError(t, err)
	urlErr := func(err error) error {
		return &url.Error{Op: "Get", URL: "http://127.0.0.2:5646/v1/jobs", Err: err}
	}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	noHost := &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "drover.invalid", IsNotFound: true}}
	const advice = "; is the agent running there? Name its HTTP address with DROVER_ADDR or -address"

	must.Eq(t, "Error connecting to Drover at http://127.0.0.2:5646: dial tcp: connect: connection refused"+advice,
		apiErrorLine(client, "querying jobs", urlErr(refused)))
	must.Eq(t, "Error connecting to Drover at http://127.0.0.2:5646: dial tcp: lookup drover.invalid: no such host"+advice,
		apiErrorLine(client, "querying jobs", urlErr(noHost)))
	badCert := apiErrorLine(client, "querying jobs", urlErr(&x509.UnknownAuthorityError{}))
	must.StrHasPrefix(t, "Error connecting to Drover at http://127.0.0.2:5646: x509: ", badCert)
	must.StrNotContains(t, badCert, "DROVER_ADDR")
	must.Eq(t, "Error querying jobs: Unexpected response code: 404 (job not found)",
		apiErrorLine(client, "querying jobs", errors.New("Unexpected response code: 404 (job not found)")))
}
