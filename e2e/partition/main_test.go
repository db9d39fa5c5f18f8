package partition

import (
	"testing"

	"github.com/drover-io/drover/e2e/agentproc"
)

func TestMain(m *testing.M) { agentproc.Main(m) }
