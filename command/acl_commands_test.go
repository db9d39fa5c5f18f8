package command

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/command/agent"
	agentconfig "github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/structs"
)

// aclTestAgent starts a test agent with ACLs on.
func aclTestAgent(t *testing.T) (*agent.Agent, string) {
	t.Helper()
	return testAgentWith(t, func(c *agentconfig.Config) { c.ACL.Enabled = true })
}

// secretIn reads the secret ID out of a printed token.
func secretIn(t *testing.T, out string) string {
	t.Helper()
	m := regexp.MustCompile(`Secret ID\s+= ([0-9a-f-]{36})`).FindStringSubmatch(out)
	must.Len(t, 2, m, must.Sprintf("no secret ID in %q", out))
	return m[1]
}

func accessorIn(t *testing.T, out string) string {
	t.Helper()
	m := regexp.MustCompile(`Accessor ID\s+= ([0-9a-f-]{36})`).FindStringSubmatch(out)
	must.Len(t, 2, m, must.Sprintf("no accessor ID in %q", out))
	return m[1]
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	must.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	return path
}

// TestACLCommands walks the ACL commands through a cluster's life: the
// bootstrap, a policy, a token that holds it and what it may do, its
// update and deletion.
func TestACLCommands(t *testing.T) {
	_, addr := aclTestAgent(t)
	cli := func(words ...string) func(args ...string) (int, string, string) {
		return func(args ...string) (int, string, string) {
			return runCLI(t, "", append(append(words, "-address", addr), args...)...)
		}
	}

	code, out, errOut := cli("acl", "bootstrap")()
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.StrContains(t, out, "Type         = management")
	mgmt := secretIn(t, out)
	code, _, errOut = cli("acl", "bootstrap")()
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, "ACL bootstrap already done")

	policy := writeFile(t, "dev.hcl", `namespace "default" { policy = "read" }`)
	code, _, errOut = cli("acl", "policy", "apply")("-token", mgmt, "-description", "Read only", "dev", policy)
	must.Eq(t, 0, code, must.Sprint(errOut))
	bad := writeFile(t, "bad.hcl", `namespace "default" { policy = "root" }`)
	code, _, errOut = cli("acl", "policy", "apply")("-token", mgmt, "bad", bad)
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, `policy "root" is not one of`)

	code, out, _ = cli("acl", "policy", "list")("-token", mgmt)
	must.Eq(t, 0, code)
	must.StrContains(t, out, "dev   Read only")
	code, out, _ = cli("acl", "policy", "info")("-token", mgmt, "dev")
	must.Eq(t, 0, code)
	must.StrContains(t, out, `namespace "default" { policy = "read" }`)

	code, out, errOut = cli("acl", "token", "create")("-token", mgmt, "-name", "reader", "-policy", "dev", "-ttl", "1h")
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.StrContains(t, out, "Policies     = [dev]")
	reader, readerAccessor := secretIn(t, out), accessorIn(t, out)

	code, out, _ = cli("acl", "token", "self")("-token", reader)
	must.Eq(t, 0, code)
	must.StrContains(t, out, "Name         = reader")
	code, out, _ = cli("acl", "token", "list")("-token", mgmt)
	must.Eq(t, 0, code)
	must.StrContains(t, out, readerAccessor)
	must.StrNotContains(t, out, reader)

	// The reader reads jobs, and may not run one.
	code, _, errOut = cli("job", "status")("-token", reader)
	must.Eq(t, 0, code, must.Sprint(errOut))
	code, _, errOut = cli("job", "run")("-token", reader, "-detach", writeJob(t, "denied", ""))
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, "Permission denied")
	code, _, errOut = cli("acl", "token", "list")("-token", reader)
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, "403")

	code, out, errOut = cli("acl", "token", "update")("-token", mgmt, "-name", "renamed", readerAccessor)
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.StrContains(t, out, "Name         = renamed")
	must.StrContains(t, out, "Policies     = [dev]")
	must.Eq(t, reader, secretIn(t, out))
	code, out, _ = cli("acl", "token", "info")("-token", mgmt, readerAccessor)
	must.Eq(t, 0, code)
	must.StrContains(t, out, "renamed")

	code, _, errOut = cli("acl", "token", "delete")("-token", mgmt, readerAccessor)
	must.Eq(t, 0, code, must.Sprint(errOut))
	code, _, errOut = cli("acl", "token", "self")("-token", reader)
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, "ACL token not found")
	code, _, errOut = cli("acl", "policy", "delete")("-token", mgmt, "dev")
	must.Eq(t, 0, code, must.Sprint(errOut))
}

// TestNamespaceCommands: namespaces by name and by specification, jobs in
// them, and the deletion that waits for their jobs to go.
func TestNamespaceCommands(t *testing.T) {
	a, addr := testAgent(t)
	cli := func(words ...string) (int, string, string) {
		args := append(append([]string{}, words[:2]...), append([]string{"-address", addr}, words[2:]...)...)
		return runCLI(t, "", args...)
	}
	code, out, errOut := cli("namespace", "apply", "-description", "QA instances", "qa")
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.StrContains(t, out, `Successfully applied namespace "qa"!`)

	spec := writeFile(t, "sandbox.hcl", `
name        = "sandbox"
description = "No raw_exec here"
meta {
  owner = "ops"
}
capabilities {
  disabled_task_drivers = ["raw_exec"]
}
`)
	code, _, errOut = cli("namespace", "apply", spec)
	must.Eq(t, 0, code, must.Sprint(errOut))
	code, out, _ = cli("namespace", "status", "sandbox")
	must.Eq(t, 0, code)
	must.StrContains(t, out, "DisabledDrivers = raw_exec")
	must.StrContains(t, out, "owner = ops")
	quota := writeFile(t, "quota.hcl", `name = "q"
quota = "small"`)
	code, _, errOut = cli("namespace", "apply", quota)
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, "Quota is not supported")

	code, out, _ = cli("namespace", "list")
	must.Eq(t, 0, code)
	must.StrContains(t, out, "qa       QA instances")
	must.StrContains(t, out, "default")

	// A job goes into the namespace; the namespace then stays.
	code, _, errOut = runCLI(t, "", "job", "run", "-address", addr, "-namespace", "qa", "-detach", writeJob(t, "in-qa", ""))
	must.Eq(t, 0, code, must.Sprint(errOut))
	job, err := a.Server().State().JobByID(nil, "qa", "in-qa")
	must.NoError(t, err)
	must.NotNil(t, job)
	code, _, errOut = runCLI(t, "", "job", "run", "-address", addr, "-namespace", "sandbox", "-detach", writeJob(t, "raw", ""))
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, "does not allow the raw_exec task driver")
	code, _, errOut = runCLI(t, "", "job", "run", "-address", addr, "-namespace", "nowhere", "-detach", writeJob(t, "lost", ""))
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, `namespace "nowhere" does not exist`)

	code, _, errOut = cli("namespace", "delete", "qa")
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, "namespace has jobs")
	code, _, errOut = runCLI(t, "", "job", "stop", "-address", addr, "-namespace", "qa", "-purge", "-detach", "in-qa")
	must.Eq(t, 0, code, must.Sprint(errOut))
	code, _, errOut = cli("namespace", "delete", "qa")
	must.Eq(t, 0, code, must.Sprint(errOut))
	code, _, errOut = cli("namespace", "delete", structs.DefaultNamespace)
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, "cannot be deleted")
}
