package main

import (
	"testing"

	"github.com/shoenig/test/must"
)

func TestSuiteEnv(t *testing.T) {
	env := []string{"PATH=/bin", "NOMAD_ADDR=http://elsewhere:4646", "NOMAD_TOKEN=secret", "NOMAD_TEST_LOG_LEVEL=DEBUG", "NOMAD_SLOW_TEST=1", "HOME=/root"}
	must.Eq(t, []string{"PATH=/bin", "NOMAD_TEST_LOG_LEVEL=DEBUG", "NOMAD_SLOW_TEST=1", "HOME=/root"}, suiteEnv(env))
}
