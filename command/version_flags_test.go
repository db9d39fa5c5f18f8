package command

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/version"
)

// The version flags answer as Nomad's do: Nomad's API test harness runs
// `nomad -version` to check the binary it found before starting an agent.
func TestVersionFlags(t *testing.T) {
	for _, args := range [][]string{{"-version"}, {"--version"}, {"-v"}, {"version"}} {
		code, out, errOut := runCLI(t, "", args...)
		must.Zero(t, code, must.Sprintf("%v: %s", args, errOut))
		must.Eq(t, version.String()+"\n", out, must.Sprint(args))
	}
}
