package agentproc

import (
	"fmt"
	"strconv"
	"strings"
)

const serverClientConfig = `
data_dir  = %q
bind_addr = "127.0.0.1"

server {
  enabled          = true
  bootstrap_expect = 1
}

client {
  enabled = true
}

plugin "raw_exec" {
  config {
    enabled = true
  }
}
`

// ServerClientConfig is the configuration of a production-shaped agent:
// server and client in one process, state in dataDir, raw_exec enabled.
func ServerClientConfig(dataDir string) string {
	return fmt.Sprintf(serverClientConfig, dataDir)
}

const clientConfig = `
name      = %q
data_dir  = %q
bind_addr = %q

client {
  enabled             = true
  servers             = [%s]
  registration_secret = %q
}

plugin "raw_exec" {
  config {
    enabled = true
  }
}
`

// ClientConfig is the configuration of a client agent named name that
// registers with the servers at their RPC addresses with the registration
// secret, and runs raw_exec tasks.
func ClientConfig(name, dataDir, bindAddr string, servers []string, registrationSecret string) string {
	return fmt.Sprintf(clientConfig, name, dataDir, bindAddr, HCLStrings(servers), registrationSecret)
}

// HCLStrings is ss quoted and separated by commas: the items of an HCL
// list of strings.
func HCLStrings(ss []string) string {
	quoted := make([]string, len(ss))
	for i, s := range ss {
		quoted[i] = strconv.Quote(s)
	}
	return strings.Join(quoted, ", ")
}
