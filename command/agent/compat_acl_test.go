package agent

import (
	"strings"
	"testing"

	nomadapi "github.com/hashicorp/nomad/api"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/internal/tlsutil"
	"github.com/drover-io/drover/internal/tlsutil/tlstest"
)

// TestCompat_OfficialClientWithACLAndTLS drives an agent that serves HTTPS
// only, verifies its clients' certificates and checks ACL tokens, with
// Nomad's own Go client: bootstrap, policies, tokens, namespaces and jobs,
// and the refusals, as Nomad's client sees them.
func TestCompat_OfficialClientWithACLAndTLS(t *testing.T) {
	ca := tlstest.NewCA(t)
	a := testAgent(t, aclEnabled, unscheduled, withTLS(ca.Files(t, "server", tlsutil.RoleServer, "global"), func(c *config.TLSConfig) {
		c.HTTP = true
		c.VerifyHTTPSClient = true
	}))
	cli := ca.Files(t, "cli", tlsutil.RoleCLI, "global")
	client := func(secret string) *nomadapi.Client {
		c, err := nomadapi.NewClient(&nomadapi.Config{
			Address:  "https://" + a.HTTPAddr(),
			SecretID: secret,
			TLSConfig: &nomadapi.TLSConfig{
				CACert: cli.CAFile, ClientCert: cli.CertFile, ClientKey: cli.KeyFile,
			},
		})
		must.NoError(t, err)
		return c
	}

	boot, _, err := client("").ACLTokens().Bootstrap(nil)
	must.NoError(t, err)
	must.Eq(t, "management", boot.Type)
	admin := client(boot.SecretID)

	_, err = admin.Namespaces().Register(&nomadapi.Namespace{Name: "team", Description: "the team"}, nil)
	must.NoError(t, err)
	_, err = admin.ACLPolicies().Upsert(&nomadapi.ACLPolicy{
		Name:  "team-dev",
		Rules: `namespace "team" { policy = "write" }` + "\nnode { policy = \"read\" }",
	}, nil)
	must.NoError(t, err)
	tok, _, err := admin.ACLTokens().Create(&nomadapi.ACLToken{Name: "dev", Type: "client", Policies: []string{"team-dev"}}, nil)
	must.NoError(t, err)
	must.NotEq(t, "", tok.SecretID)
	dev := client(tok.SecretID)

	self, _, err := dev.ACLTokens().Self(nil)
	must.NoError(t, err)
	must.Eq(t, tok.AccessorID, self.AccessorID)
	policies, _, err := dev.ACLPolicies().List(nil)
	must.NoError(t, err)
	must.Len(t, 1, policies)
	namespaces, _, err := dev.Namespaces().List(nil)
	must.NoError(t, err)
	must.Len(t, 1, namespaces)
	must.Eq(t, "team", namespaces[0].Name)

	job := nomadapi.NewBatchJob("team-job", "team-job", "global", 50)
	job.Namespace = new("team")
	job.AddTaskGroup(nomadapi.NewTaskGroup("g", 1).AddTask(nomadapi.NewTask("t", "mock_driver").SetConfig("run_for", "1s")))
	reg, _, err := dev.Jobs().Register(job, nil)
	must.NoError(t, err)
	must.NotEq(t, "", reg.EvalID)
	stubs, _, err := dev.Jobs().List(&nomadapi.QueryOptions{Namespace: "team"})
	must.NoError(t, err)
	must.Len(t, 1, stubs)
	_, _, err = dev.Nodes().List(nil)
	must.NoError(t, err)

	// What the token does not grant is Nomad's 403, and writes nothing.
	job.Namespace = new("default")
	_, _, err = dev.Jobs().Register(job, nil)
	must.ErrorContains(t, err, "403")
	must.ErrorContains(t, err, "Permission denied")
	_, _, err = dev.ACLTokens().List(nil)
	must.ErrorContains(t, err, "Permission denied")
	_, err = client("").Agent().Self()
	must.ErrorContains(t, err, "403")
	_, _, err = client("6e6a5a43-0000-4000-8000-000000000000").Jobs().List(nil)
	must.ErrorContains(t, err, "ACL token not found")
	stubs, _, err = admin.Jobs().List(&nomadapi.QueryOptions{Namespace: "*"})
	must.NoError(t, err)
	must.Len(t, 1, stubs, must.Sprint("the refused register wrote a job"))

	_, err = admin.ACLTokens().Delete(tok.AccessorID, nil)
	must.NoError(t, err)
	_, _, err = dev.Jobs().List(&nomadapi.QueryOptions{Namespace: "team"})
	must.True(t, strings.Contains(err.Error(), "ACL token not found"), must.Sprint(err))
}
