// Package dockertest gives tests what the docker driver needs on a
// machine whose Docker engine can pull from nowhere but loopback: the
// engine (or a loud failure in CI when it does not answer), an in-process
// OCI registry on 127.0.0.1, and images built in Go FROM scratch around
// a static test program (see testapp), removed again when the test ends.
package dockertest

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/moby/moby/client"
)

// TestLabel marks every image and container a test makes, so that a
// clean-up can find what a crashed test left behind:
//
//	docker ps -aq --filter label=io.drover.test | xargs -r docker rm -f
const TestLabel = "io.drover.test"

// Engine returns a client of the local Docker engine. When the engine
// does not answer the test fails in CI (CI is set), where nothing may be
// skipped, and is skipped elsewhere.
func Engine(t testing.TB) *client.Client {
	t.Helper()
	c, err := client.New(client.FromEnv)
	if err != nil {
		unavailable(t, err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.Ping(ctx, client.PingOptions{NegotiateAPIVersion: true}); err != nil {
		unavailable(t, err)
	}
	return c
}

func unavailable(t testing.TB, err error) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("the Docker engine does not answer, and CI runs every docker test: %v", err)
	}
	t.Skipf("the Docker engine does not answer (in CI this fails): %v", err)
}
