package nomad

import (
	"testing"

	"github.com/drover-io/drover/acl"
)

// BenchmarkResolveToken is what one request's token costs a server: the
// token's lookup and its compiled policies (cached), and a check.
func BenchmarkResolveToken(b *testing.B) {
	s := startServer(b, func() *Config { cfg := unscheduledConfig(b, "bench"); cfg.ACLEnabled = true; return cfg }())
	waitForLeader(b, s)
	if _, err := s.BootstrapACL(testCtx(b), &ACLBootstrapRequest{}); err != nil {
		b.Fatal(err)
	}
	tok := clientToken(b, s, "reader", `namespace "default" { policy = "read" }
namespace "team-*" { policy = "write" }`)
	ctx := testCtx(b)
	b.ResetTimer()
	for range b.N {
		a, _, err := s.ResolveToken(ctx, tok.SecretID)
		if err != nil || !a.AllowNamespaceOperation("default", acl.CapListJobs) {
			b.Fatal(err)
		}
	}
}
