package agent

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	nomadapi "github.com/hashicorp/nomad/api"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/internal/tlsutil"
	"github.com/drover-io/drover/internal/tlsutil/tlstest"
	"github.com/drover-io/drover/internal/waitfor"
)

// fullTLS is the tls block of an agent with everything on, with files.
func fullTLS(files tlsutil.Files) func(*config.Config) {
	return withTLS(files, func(c *config.TLSConfig) {
		c.HTTP, c.RPC = true, true
		c.VerifyServerHostname, c.VerifyHTTPSClient = true, true
	})
}

// TestTLSCluster runs three servers and a client agent with TLS on for
// HTTP and RPC and no cluster key or registration secret, the
// certificates alone saying who is what, and drives it end to end with
// Nomad's own Go client over HTTPS: a job with a max_run_duration runs on
// the client, is stopped at its deadline, and its logs are read from the
// node.
func TestTLSCluster(t *testing.T) {
	ca := tlstest.NewCA(t)
	serverFiles := ca.Files(t, "server", tlsutil.RoleServer, "global")
	cluster := startServerCluster(t, 3, fullTLS(serverFiles), func(cfg *config.Config) { cfg.Server.EncryptKey = "" })
	leader := cluster.leader()

	var servers []string
	for _, a := range cluster.agents {
		servers = append(servers, a.Server().RPCAdvertise())
	}
	clientFiles := ca.Files(t, "client", tlsutil.RoleClient, "global")
	var workers []*Agent
	for _, name := range []string{"tls-client-a", "tls-client-b"} {
		workers = append(workers, testClientAgent(t, fullTLS(clientFiles), func(cfg *config.Config) {
			cfg.NodeName = name
			cfg.Server.Enabled = false
			cfg.Client.Servers = servers
		}))
	}

	cli := ca.Files(t, "cli", tlsutil.RoleCLI, "global")
	follower := cluster.followers()[0]
	client, err := nomadapi.NewClient(&nomadapi.Config{
		Address: "https://" + follower.HTTPAddr(),
		TLSConfig: &nomadapi.TLSConfig{
			CACert: ca.CAFile, ClientCert: cli.CertFile, ClientKey: cli.KeyFile,
		},
	})
	must.NoError(t, err)

	nodes, _, err := client.Nodes().List(nil)
	must.NoError(t, err)
	must.Len(t, 2, nodes)
	for _, w := range workers {
		node, _, err := client.Nodes().Info(w.Client().NodeID(), nil)
		must.NoError(t, err)
		must.Eq(t, "ready", node.Status)
		must.True(t, node.TLSEnabled, must.Sprint("the node serves HTTPS"))
	}

	job := nomadapi.NewBatchJob("tls-maxrun", "tls-maxrun", "global", 50)
	job.Datacenters = []string{"dc1"}
	group := nomadapi.NewTaskGroup("maxrun", 1)
	group.AddTask(nomadapi.NewTask("maxrun", "raw_exec").
		SetConfig("command", "/bin/sh").SetConfig("args", []string{"-c", "echo over-tls; exec sleep 600"}))
	budget := 3 * time.Second
	group.MaxRunDuration = &budget
	job.AddTaskGroup(group)
	_, _, err = client.Jobs().Register(job, nil)
	must.NoError(t, err)

	var alloc *nomadapi.Allocation
	waitfor.NoError(t, "the allocation to end at its deadline", func() error {
		stubs, _, err := client.Jobs().Allocations("tls-maxrun", false, nil)
		if err != nil || len(stubs) == 0 {
			return fmt.Errorf("allocations: %v (%d)", err, len(stubs))
		}
		alloc, _, err = client.Allocations().Info(stubs[0].ID, nil)
		if err != nil {
			return err
		}
		if alloc.ClientStatus != "complete" {
			return fmt.Errorf("client status %s", alloc.ClientStatus)
		}
		return nil
	})
	must.Eq(t, "allocation exceeded max_run_duration", alloc.ClientDescription)

	// Nomad's client reads the logs from the node itself, over HTTPS,
	// checking that its certificate names client.global.nomad.
	body, err := client.AllocFS().Cat(alloc, "alloc/logs/maxrun.stdout.0", nil)
	must.NoError(t, err)
	defer body.Close()
	buf := new(strings.Builder)
	_, err = io.Copy(buf, body)
	must.NoError(t, err)
	must.Eq(t, "over-tls\n", buf.String())

	// And through a server, which forwards to the node over HTTPS.
	resp := do(t, leader, "GET", "/v1/client/fs/logs/"+alloc.ID+"?task=maxrun&type=stdout&plain=true", nil)
	must.Eq(t, 200, resp.code, must.Sprint(resp))
	must.Eq(t, "over-tls\n", string(resp.body))
}
