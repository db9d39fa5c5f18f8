// Command drover is a single-binary workload orchestrator: server, client and
// CLI in one.
package main

import (
	"os"

	"github.com/drover-io/drover/command"
)

func main() {
	os.Exit(command.Main(os.Args[1:]))
}
