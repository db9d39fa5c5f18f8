package agent

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shoenig/test/must"
	"github.com/shoenig/test/wait"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

// identityJob is a batch job whose task asks for its identity in its
// environment and in a file, and copies the one from its environment to
// the shared alloc/ directory for the test to compare.
func identityJob(id string, ttl time.Duration) map[string]any {
	task := rawExecTask("worker", "/bin/sh", "-c", `printf %s "$NOMAD_TOKEN" > "$NOMAD_ALLOC_DIR/env_token"; sleep 300`)
	task["Identity"] = map[string]any{"Env": true, "File": true, "TTL": ttl}
	return map[string]any{
		"ID": id, "Name": id, "Type": "batch", "Datacenters": []string{"dc1"},
		"TaskGroups": []any{map[string]any{"Name": "g", "Count": 1, "Tasks": []any{task}}},
	}
}

// runningIdentityTask runs identityJob and returns its allocation and the
// tokens the task found in its environment and in secrets/nomad_token.
func runningIdentityTask(t *testing.T, a *Agent, mgmt, jobID string) (allocID, envToken, fileToken string) {
	t.Helper()
	resp := doAs(t, a, mgmt, http.MethodPut, "/v1/jobs", map[string]any{"Job": identityJob(jobID, time.Hour)})
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	var shared, secrets string
	waitfor.True(t, "the task's tokens", func() bool {
		resp := doAs(t, a, mgmt, http.MethodGet, "/v1/job/"+jobID+"/allocations", nil)
		var stubs []*api.AllocationListStub
		if resp.code != http.StatusOK || json.Unmarshal(resp.body, &stubs) != nil || len(stubs) != 1 {
			return false
		}
		allocID = stubs[0].ID
		ar, err := a.Client().AllocRunner(allocID)
		if err != nil {
			return false
		}
		td, err := ar.AllocDir().TaskDir("worker")
		if err != nil {
			return false
		}
		shared, secrets = filepath.Join(ar.AllocDir().SharedDir, "env_token"), filepath.Join(td.SecretsDir, "nomad_token")
		env, err1 := os.ReadFile(shared)
		file, err2 := os.ReadFile(secrets)
		envToken, fileToken = string(env), string(file)
		return err1 == nil && err2 == nil && envToken != ""
	}, wait.Timeout(60*time.Second), wait.Gap(50*time.Millisecond))
	info, err := os.Stat(secrets)
	must.NoError(t, err)
	must.Eq(t, os.FileMode(0o600), info.Mode().Perm())
	return allocID, envToken, fileToken
}

// TestWorkloadIdentity_taskReadsItsOwnAllocation runs a task with an
// identity block on a client with ACLs on: the token it gets reads its
// allocation (with its deadline fields) and its job, and nothing else.
func TestWorkloadIdentity_taskReadsItsOwnAllocation(t *testing.T) {
	a := testClientAgent(t, aclEnabled)
	resp := do(t, a, http.MethodPut, "/v1/acl/bootstrap", nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	var boot api.ACLToken
	must.NoError(t, json.Unmarshal(resp.body, &boot))
	mgmt := boot.SecretID

	allocID, envToken, fileToken := runningIdentityTask(t, a, mgmt, "ident")
	must.Eq(t, envToken, fileToken)
	must.True(t, structs.LooksLikeJWT(envToken))

	// The token is signed by the key the JWKS publishes, with Nomad's claims.
	claims := verifyWithJWKS(t, a, envToken)
	must.Eq(t, allocID, claims.AllocationID)
	must.Eq(t, "ident", claims.JobID)
	must.Eq(t, "default", claims.Namespace)
	must.Eq(t, "worker", claims.Task)
	must.Eq(t, "global:default:ident:g:worker:default", claims.Subject)
	must.Eq(t, []string{"nomad.io"}, claims.Audience)
	must.Eq(t, claims.IssuedAt+3600, claims.Expiry)

	resp = doAs(t, a, envToken, http.MethodGet, "/v1/allocation/"+allocID, nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	var alloc api.Allocation
	must.NoError(t, json.Unmarshal(resp.body, &alloc))
	must.Eq(t, allocID, alloc.ID)
	resp = doAs(t, a, envToken, http.MethodGet, "/v1/job/ident", nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))

	// Another job's allocation and the job itself are refused, and so is
	// everything else.
	otherAlloc, _, _ := runningIdentityTask(t, a, mgmt, "other")
	for _, path := range []string{
		"/v1/allocation/" + otherAlloc,
		"/v1/job/other",
		"/v1/job/ident?namespace=elsewhere",
		"/v1/job/ident/allocations",
		"/v1/allocations",
		"/v1/jobs",
		"/v1/nodes",
		"/v1/acl/token/self",
		"/v1/client/fs/ls/" + allocID,
		"/v1/operator/keyring/keys",
	} {
		resp := doAs(t, a, envToken, http.MethodGet, path, nil)
		must.Eq(t, http.StatusForbidden, resp.code, must.Sprintf("GET %s: %s", path, resp))
	}
	resp = doAs(t, a, envToken, http.MethodPut, "/v1/allocation/"+allocID+"/stop", nil)
	must.Eq(t, http.StatusForbidden, resp.code, must.Sprint(resp))

	// Once its allocation is stopped, the token is refused.
	resp = doAs(t, a, mgmt, http.MethodPut, "/v1/allocation/"+allocID+"/stop", nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	waitfor.True(t, "the stopped allocation's token refused", func() bool {
		return doAs(t, a, envToken, http.MethodGet, "/v1/allocation/"+allocID, nil).code == http.StatusForbidden
	}, wait.Timeout(60*time.Second), wait.Gap(100*time.Millisecond))
}

// verifyWithJWKS checks token against the agent's published key set only,
// as a third party would, and returns its claims.
func verifyWithJWKS(t *testing.T, a *Agent, token string) *structs.IdentityClaims {
	t.Helper()
	var set jwks
	get(t, a, jwksPath, &set)
	claims, err := structs.VerifyIdentity(token, jwksLookup(t, set), time.Now())
	must.NoError(t, err)
	return claims
}
