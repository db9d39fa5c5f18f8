package agent

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	nomadapi "github.com/hashicorp/nomad/api"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/internal/authcount"
	"github.com/drover-io/drover/structs"
)

// routeFixture is what the route test's URLs name: objects of every kind,
// and scratch ones for the routes that delete.
type routeFixture struct {
	t          *testing.T
	a          *Agent
	mgmt       string
	jobID      string
	periodicID string
	allocID    string
	evalID     string
	nodeID     string
	// deploymentID is a deployment of the job, whose allocation is allocID.
	deploymentID string
	// scratchToken is the accessor of a token the token routes may delete.
	scratchToken string
	// varPath is a variable's path.
	varPath string

	mu     sync.Mutex
	tokens map[string][2]*api.ACLToken
}

func newRouteFixture(t *testing.T, a *Agent, mgmt string) *routeFixture {
	fx := &routeFixture{t: t, a: a, mgmt: mgmt, tokens: map[string][2]*api.ACLToken{}, varPath: "route/test/var"}
	srv := a.Server()
	job := batchJobJSON("acl-job")
	onMockDriver(job)
	resp := doAs(t, a, mgmt, http.MethodPut, "/v1/jobs", map[string]any{"Job": job})
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	fx.jobID, fx.evalID = "acl-job", stringField(t, resp, "EvalID")

	periodic := batchJobJSON("acl-periodic")
	onMockDriver(periodic)
	periodic["Periodic"] = map[string]any{"Enabled": true, "Spec": "0 0 1 1 *", "SpecType": "cron"}
	resp = doAs(t, a, mgmt, http.MethodPut, "/v1/jobs", map[string]any{"Job": periodic})
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	fx.periodicID = "acl-periodic"

	node := &structs.Node{ID: structs.GenerateUUID(), Name: "acl-node", Datacenter: "dc1", Status: structs.NodeStatusReady}
	_, err := srv.NodeRegister(t.Context(), node)
	must.NoError(t, err)
	fx.nodeID = node.ID
	stored, err := srv.State().JobByID(nil, structs.DefaultNamespace, fx.jobID)
	must.NoError(t, err)
	fx.allocID = placeAlloc(t, srv, stored, node.ID).ID
	fx.deploymentID = placeDeployment(t, srv, stored, fx.allocID)

	fx.scratchToken = tokenWith(t, a, mgmt, "scratch", `node { policy = "read" }`).AccessorID
	resp = doAs(t, a, mgmt, http.MethodPut, "/v1/namespace/scratch-ns", api.Namespace{Name: "scratch-ns"})
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	// What the listed routes must show only to those who may see it.
	resp = doAs(t, a, mgmt, http.MethodPut, "/v1/namespace/hidden-ns", api.Namespace{Name: "hidden-ns"})
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	tokenWith(t, a, mgmt, "hidden-policy", `node { policy = "read" }`)
	return fx
}

func stringField(t *testing.T, resp response, field string) string {
	t.Helper()
	var m map[string]any
	must.NoError(t, httpserver.UnmarshalBody(resp.body, &m, "response"))
	v, _ := m[field].(string)
	return v
}

// tokensFor returns a token that has what need asks and one that has
// everything else, made once per need.
func (fx *routeFixture) tokensFor(need httpserver.Access) (holding, lacking *api.ACLToken) {
	t := fx.t
	key := need.String()
	fx.mu.Lock()
	defer fx.mu.Unlock()
	if pair, ok := fx.tokens[key]; ok {
		return pair[0], pair[1]
	}
	name := fmt.Sprintf("route-%d", len(fx.tokens))
	hold, lack := fx.rules(need)
	switch need.Kind {
	case httpserver.AccessManagement:
		holding = managementToken(t, fx.a, fx.mgmt)
	case httpserver.AccessToken, httpserver.AccessTokenOwner, httpserver.AccessPolicyHolder:
		holding = tokenWith(t, fx.a, fx.mgmt, name+"-holding", `agent { policy = "read" }`)
	default:
		holding = tokenWith(t, fx.a, fx.mgmt, name+"-holding", hold)
	}
	if need.Kind == httpserver.AccessToken {
		lacking = &api.ACLToken{SecretID: structs.GenerateUUID()} // no such token
	} else {
		lacking = tokenWith(t, fx.a, fx.mgmt, name+"-lacking", lack)
	}
	// Token-owner and policy-holder routes name their holder in the URL:
	// each gets a token of its own.
	if need.Kind != httpserver.AccessTokenOwner && need.Kind != httpserver.AccessPolicyHolder {
		fx.tokens[key] = [2]*api.ACLToken{holding, lacking}
	}
	return holding, lacking
}

// rules are the policies of the holding and the lacking tokens of need.
func (fx *routeFixture) rules(need httpserver.Access) (holding, lacking string) {
	switch need.Kind {
	case httpserver.AccessNamespace, httpserver.AccessJobBody, httpserver.AccessAllocNamespace, httpserver.AccessEvalNamespace,
		httpserver.AccessDeploymentNamespace:
		return namespaceRules(need.Caps[:1]), namespaceRules(allNamespaceCapsBut(need.Caps...)) + globalRulesBut("")
	case httpserver.AccessNamespaceNamed:
		return `namespace "default" { capabilities = ["list-jobs"] }`,
			"namespace \"default\" { policy = \"deny\" }\n" + everything
	case httpserver.AccessNodeRead:
		return dispositionRules("node", "read", "deny")
	case httpserver.AccessNodeWrite:
		return dispositionRules("node", "write", "read")
	case httpserver.AccessAgentRead:
		return dispositionRules("agent", "read", "deny")
	case httpserver.AccessOperatorCapability:
		return fmt.Sprintf("operator { capabilities = [%q] }", need.Caps[0]),
			namespaceRules(allNamespaceCapsBut()) + globalRulesBut("operator") + `operator { policy = "read" }`
	case httpserver.AccessVariable:
		return variablesRules(need.Caps[0]), variablesRules(variablesCapsBut(need.Caps[0])...) + globalRulesBut("")
	case httpserver.AccessVariableList:
		// Reading and writing include listing: the lacking token may
		// only destroy.
		return variablesRules(acl.VariablesList), variablesRules(acl.VariablesDestroy) + globalRulesBut("")
	}
	return "", everything
}

// path fills in a route's path parameters.
func (fx *routeFixture) path(rt httpserver.Route, holding *api.ACLToken) string {
	p := rt.Path
	var id string
	switch {
	case strings.HasPrefix(p, "/v1/job/{id}/periodic/"):
		id = fx.periodicID
	case strings.HasPrefix(p, "/v1/job/"):
		id = fx.jobID
	case strings.HasPrefix(p, "/v1/allocation/"), strings.HasPrefix(p, "/v1/client/"):
		id = fx.allocID
	case strings.HasPrefix(p, "/v1/evaluation/"):
		id = fx.evalID
	case strings.HasPrefix(p, "/v1/deployment/"):
		id = fx.deploymentID
	case strings.HasPrefix(p, "/v1/node/"):
		id = fx.nodeID
	case p == "/v1/acl/token/{id}" && rt.Method == http.MethodGet:
		id = holding.AccessorID
	case p == "/v1/acl/token/{id}":
		id = fx.scratchToken
	case p == keyringKeyPath:
		id = "00000000-0000-4000-8000-000000000000" // a key that is not there
	case p == "/v1/var/{path...}":
		return "/v1/var/" + fx.varPath
	case strings.HasPrefix(p, "/v1/service/"):
		id = "_nomad-task-not-registered"
	}
	var name string
	switch {
	case p == "/v1/acl/policy/{name}" && rt.Method == http.MethodGet:
		name = holding.Policies[0]
	case p == "/v1/acl/policy/{name}":
		name = "scratch"
	case p == "/v1/namespace/{name}" && rt.Method == http.MethodGet:
		name = "default"
	case p == "/v1/namespace/{name}":
		name = "scratch-ns"
	case strings.HasPrefix(p, "/v1/service/"):
		name = "web"
	}
	if strings.Contains(p, "{id}") && id == "" || strings.Contains(p, "{name}") && name == "" {
		fx.t.Fatalf("%s %s: the route test has no value for its path parameter; add one to routeFixture.path", rt.Method, p)
	}
	p = strings.ReplaceAll(p, "{id}", id)
	return strings.ReplaceAll(p, "{name}", name)
}

// countCalls wraps every handler of the live route table so that the test
// sees whether a refused request reached it.
func countCalls(s *HTTPServer) func(method, path string) int {
	var mu sync.Mutex
	calls := map[string]int{}
	s.WrapHandlers(func(rt httpserver.Route, h httpserver.HandlerFunc) httpserver.HandlerFunc {
		key := rt.Method + " " + rt.Path
		return func(w http.ResponseWriter, r *http.Request) (any, error) {
			mu.Lock()
			calls[key]++
			mu.Unlock()
			return h(w, r)
		}
	})
	return func(method, path string) int {
		mu.Lock()
		defer mu.Unlock()
		return calls[method+" "+path]
	}
}

// TestRoutes_everyRouteChecksItsCapability reads the route table from a
// live agent with ACLs on and calls every route three times: without a
// token, with a token that lacks what the route needs (and has everything
// else), and with one that has it. The first two are 403, the third is
// anything but 403. A route the agent checks never reaches its handler
// when refused; one the server checks (a write the server serves) reaches
// it, with a body that gets it as far as the server, which refuses. In a
// build tagged drover_authcount, each call is checked exactly once,
// wherever the check is made. A route added without a check cannot be
// registered (httpserver.NewRoute takes what it needs); one whose check
// is wrong, or made twice, fails here.
func TestRoutes_everyRouteChecksItsCapability(t *testing.T) {
	a, mgmt := aclAgent(t, func(c *config.Config) { c.Server.MinHeartbeatTTL = time.Hour })
	fx := newRouteFixture(t, a, mgmt)
	routes := a.http.Routes()
	must.Greater(t, 60, len(routes))
	called := countCalls(a.http)

	for _, rt := range routes {
		t.Run(rt.Method+" "+rt.Path, func(t *testing.T) {
			switch rt.Need.Kind {
			case httpserver.AccessPublic:
				for _, secret := range []string{"", structs.GenerateUUID(), mgmt} {
					resp := doAs(t, a, secret, rt.Method, fx.path(rt, nil), nil)
					must.NotEq(t, http.StatusForbidden, resp.code, must.Sprintf("public route refused: %s", resp))
				}
				return
			case httpserver.AccessListed:
				checkListed(t, fx, rt)
				return
			}
			holding, lacking := fx.tokensFor(rt.Need)
			path := fx.path(rt, holding)
			body := fx.body(rt)
			checkedByAgent := !rt.Need.Server && rt.Need.Kind != httpserver.AccessJobBody
			for who, secret := range map[string]string{"no token": "", "a lacking token": lacking.SecretID} {
				before := called(rt.Method, rt.Path)
				checks := authcount.Total()
				resp := doAs(t, a, secret, rt.Method, path, body)
				must.Eq(t, http.StatusForbidden, resp.code, must.Sprintf("%s: %s", who, resp))
				mustBeCheckedOnce(t, checks, who)
				if checkedByAgent {
					must.Eq(t, before, called(rt.Method, rt.Path), must.Sprintf("%s reached the handler", who))
				}
			}
			checks := authcount.Total()
			resp := doAs(t, a, holding.SecretID, rt.Method, path, body)
			must.NotEq(t, http.StatusForbidden, resp.code, must.Sprintf("holding %s: %s", rt.Need, resp))
			mustBeCheckedOnce(t, checks, "holding "+rt.Need.String())
		})
	}
}

// mustBeCheckedOnce holds, in a build that counts permission checks, that
// one request made since the count stood at before was checked once.
func mustBeCheckedOnce(t *testing.T, before uint64, who string) {
	t.Helper()
	if authcount.Enabled {
		must.Eq(t, 1, authcount.Total()-before, must.Sprintf("%s: permission checks made", who))
	}
}

// body is what a route's request carries: for a write the server checks,
// what its handler needs to get as far as the server.
func (fx *routeFixture) body(rt httpserver.Route) any {
	if rt.Method == http.MethodGet || rt.Method == http.MethodDelete {
		return nil
	}
	switch rt.Path {
	case "/v1/jobs", "/v1/job/{id}", jobPlanPath, "/v1/validate/job":
		job := batchJobJSON(fx.jobID)
		onMockDriver(job)
		return map[string]any{"Job": job}
	case "/v1/job/{id}/revert":
		return map[string]any{"JobVersion": 0}
	case "/v1/job/{id}/dispatch":
		return map[string]any{"Meta": map[string]string{}}
	case "/v1/allocation/{id}/max-run-duration":
		return map[string]any{"MaxRunDuration": int64(time.Hour)}
	case "/v1/deployment/pause/{id}":
		return map[string]any{"Pause": true}
	case "/v1/deployment/promote/{id}":
		return map[string]any{"All": true}
	case "/v1/deployment/allocation-health/{id}":
		return map[string]any{"HealthyAllocationIDs": []string{fx.allocID}}
	case "/v1/node/{id}/eligibility":
		return map[string]any{"Eligibility": structs.NodeSchedulingEligible}
	case "/v1/node/{id}/drain":
		return map[string]any{"DrainSpec": nil}
	case "/v1/acl/policy/{name}":
		return map[string]any{"Name": "scratch", "Rules": `node { policy = "read" }`}
	case "/v1/acl/token":
		return map[string]any{"Name": "made", "Type": "client", "Policies": []string{"scratch"}}
	case "/v1/acl/token/{id}":
		return map[string]any{"AccessorID": fx.scratchToken, "Name": "scratch", "Type": "client", "Policies": []string{"scratch"}}
	case "/v1/namespace", "/v1/namespace/{name}":
		return map[string]any{"Name": "scratch-ns"}
	case "/v1/var/{path...}":
		return map[string]any{"Path": fx.varPath, "Items": map[string]string{"k": "v"}}
	case operatorSnapshotPath:
		return []byte("not a snapshot archive")
	}
	return nil
}

// checkListed calls a route that anyone may call and whose list is
// filtered: what the caller may not see is not in it.
func checkListed(t *testing.T, fx *routeFixture, rt httpserver.Route) {
	if rt.Path == "/v1/event/stream" {
		checkEventStream(t, fx)
		return
	}
	hidden := map[string]string{"/v1/namespaces": "hidden-ns", "/v1/acl/policies": "hidden-policy"}[rt.Path]
	if hidden == "" {
		t.Fatalf("%s %s is listed but the route test does not know what it hides; add it to checkListed", rt.Method, rt.Path)
	}
	reader := tokenWith(t, fx.a, fx.mgmt, "listed-reader", `namespace "default" { policy = "read" }`)
	for _, secret := range []string{"", reader.SecretID} {
		resp := doAs(t, fx.a, secret, rt.Method, rt.Path, nil)
		must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
		must.StrNotContains(t, resp.String(), hidden)
	}
	resp := doAs(t, fx.a, fx.mgmt, rt.Method, rt.Path, nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	must.StrContains(t, resp.String(), hidden)
}

// TestRoutes_jobBodyNamespace: a route whose namespace is the submitted
// job's checks that namespace, not the URL's, and raw_exec needs its own
// capability.
func TestRoutes_jobBodyNamespace(t *testing.T) {
	a, mgmt := aclAgent(t)
	must.Eq(t, http.StatusOK, doAs(t, a, mgmt, http.MethodPut, "/v1/namespace/team", api.Namespace{Name: "team"}).code)
	team := tokenWith(t, a, mgmt, "team", `namespace "team" { policy = "write" }`)
	rawTeam := tokenWith(t, a, mgmt, "raw-team", `namespace "team" {
  policy       = "write"
  capabilities = ["submit-raw-exec"]
}`)

	job := batchJobJSON("body-ns") // a raw_exec task
	for _, path := range []string{"/v1/jobs", "/v1/job/body-ns", "/v1/job/body-ns/plan", "/v1/validate/job"} {
		resp := doAs(t, a, team.SecretID, http.MethodPut, path, map[string]any{"Job": job})
		must.Eq(t, http.StatusForbidden, resp.code, must.Sprintf("%s into default: %s", path, resp))
	}
	job["Namespace"] = "team"
	resp := doAs(t, a, team.SecretID, http.MethodPut, "/v1/jobs", map[string]any{"Job": job})
	must.Eq(t, http.StatusForbidden, resp.code, must.Sprint(resp))
	must.StrContains(t, resp.String(), "submit-raw-exec")
	stored, err := a.Server().State().JobByID(nil, "team", "body-ns")
	must.NoError(t, err)
	must.Nil(t, stored, must.Sprint("a refused register wrote the job"))

	for _, path := range []string{"/v1/job/body-ns/plan", "/v1/validate/job"} {
		resp := doAs(t, a, team.SecretID, http.MethodPut, path, map[string]any{"Job": job})
		must.Eq(t, http.StatusOK, resp.code, must.Sprintf("%s: %s", path, resp))
	}
	resp = doAs(t, a, rawTeam.SecretID, http.MethodPut, "/v1/jobs", map[string]any{"Job": job})
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
}

// TestRoutes_listsAcrossNamespacesAreFiltered: ?namespace=* shows what the
// token may read, nothing more.
func TestRoutes_listsAcrossNamespacesAreFiltered(t *testing.T) {
	a, mgmt := aclAgent(t)
	must.Eq(t, http.StatusOK, doAs(t, a, mgmt, http.MethodPut, "/v1/namespace/secret", api.Namespace{Name: "secret"}).code)
	for _, ns := range []string{"default", "secret"} {
		job := batchJobJSON("in-" + ns)
		job["Namespace"] = ns
		resp := doAs(t, a, mgmt, http.MethodPut, "/v1/jobs", map[string]any{"Job": job})
		must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	}
	reader := tokenWith(t, a, mgmt, "default-reader", `namespace "default" { policy = "read" }`)
	for _, path := range []string{"/v1/jobs?namespace=*", "/v1/evaluations?namespace=*"} {
		resp := doAs(t, a, reader.SecretID, http.MethodGet, path, nil)
		must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
		must.StrContains(t, resp.String(), "in-default")
		must.StrNotContains(t, resp.String(), "in-secret")
		all := doAs(t, a, mgmt, http.MethodGet, path, nil)
		must.StrContains(t, all.String(), "in-secret")
	}
	resp := doAs(t, a, reader.SecretID, http.MethodGet, "/v1/jobs?namespace=secret", nil)
	must.Eq(t, http.StatusForbidden, resp.code)
	must.StrContains(t, resp.String(), "Permission denied")
}

func TestRoutes_tokenErrors(t *testing.T) {
	a, mgmt := aclAgent(t)
	resp := doAs(t, a, structs.GenerateUUID(), http.MethodGet, "/v1/jobs", nil)
	must.Eq(t, http.StatusForbidden, resp.code)
	must.StrContains(t, resp.String(), "ACL token not found")

	// A bearer token works as X-Nomad-Token does.
	req, err := http.NewRequest(http.MethodGet, "http://"+a.HTTPAddr()+"/v1/jobs", nil)
	must.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+mgmt)
	r, err := http.DefaultClient.Do(req)
	must.NoError(t, err)
	r.Body.Close()
	must.Eq(t, http.StatusOK, r.StatusCode)

	resp = doAs(t, a, "", http.MethodGet, "/v1/acl/token/self", nil)
	must.Eq(t, http.StatusForbidden, resp.code)
}

func TestRoutes_withoutACLsTheTokenIsIgnored(t *testing.T) {
	a := testAgent(t, unscheduled)
	resp := doAs(t, a, structs.GenerateUUID(), http.MethodGet, "/v1/jobs", nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	resp = doAs(t, a, "", http.MethodPut, "/v1/acl/bootstrap", nil)
	must.Eq(t, http.StatusBadRequest, resp.code)
	must.StrContains(t, resp.String(), "ACL support disabled")
}

// TestRoutes_anonymousPolicy: requests without a token get the policy named
// "anonymous".
func TestRoutes_anonymousPolicy(t *testing.T) {
	a, mgmt := aclAgent(t)
	must.Eq(t, http.StatusForbidden, doAs(t, a, "", http.MethodGet, "/v1/jobs", nil).code)
	resp := doAs(t, a, mgmt, http.MethodPut, "/v1/acl/policy/anonymous", api.ACLPolicy{Rules: `namespace "default" { policy = "read" }`})
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	must.Eq(t, http.StatusOK, doAs(t, a, "", http.MethodGet, "/v1/jobs", nil).code)
	must.Eq(t, http.StatusForbidden, doAs(t, a, "", http.MethodGet, "/v1/nodes", nil).code)
}

// checkEventStream: the event stream, open to any caller, carries only the
// events its caller's token may read.
func checkEventStream(t *testing.T, fx *routeFixture) {
	reader := tokenWith(t, fx.a, fx.mgmt, "stream-reader", `namespace "default" { policy = "read" }`)
	client := officialClient(t, fx.a)
	subscribe := func(secret string) <-chan *nomadapi.Events {
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		ch, err := client.EventStream().Stream(ctx, map[nomadapi.Topic][]string{nomadapi.TopicJob: {"*"}}, 0,
			&nomadapi.QueryOptions{AuthToken: secret, Namespace: "*"})
		must.NoError(t, err)
		return ch
	}
	anonymous, readerCh, mgmtCh := subscribe(""), subscribe(reader.SecretID), subscribe(fx.mgmt)
	for _, ns := range []string{"hidden-ns", "default"} {
		job := batchJobJSON("stream-" + ns)
		job["Namespace"] = ns
		onMockDriver(job)
		resp := doAs(t, fx.a, fx.mgmt, http.MethodPut, "/v1/jobs", map[string]any{"Job": job})
		must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	}
	saw := func(events []nomadapi.Event, key string) bool {
		return slices.ContainsFunc(events, func(e nomadapi.Event) bool { return e.Key == key })
	}
	collectEvents(t, mgmtCh, func(got []nomadapi.Event) bool {
		return saw(got, "stream-hidden-ns") && saw(got, "stream-default")
	})
	got := collectEvents(t, readerCh, func(got []nomadapi.Event) bool { return saw(got, "stream-default") })
	must.False(t, saw(got, "stream-hidden-ns"), must.Sprint("the reader saw a job of a namespace it may not read"))
	select {
	case frame := <-anonymous:
		must.SliceEmpty(t, frame.Events, must.Sprint("the anonymous caller saw events"))
	default:
	}
}

// aclConceptsPage is where the docs list what each endpoint needs.
const aclConceptsPage = "../../website/content/docs/concepts/acl.md"

// TestRoutes_documented holds the ACL page's table of what each endpoint
// needs to the live route table, both ways: what the table promises is
// what the routes check.
func TestRoutes_documented(t *testing.T) {
	data, err := os.ReadFile(aclConceptsPage)
	must.NoError(t, err)
	documented := map[string]string{}
	row := regexp.MustCompile("^\\| ((?:`[A-Z]+`(?:, )?)+) \\| `([^`]+)` \\| ([^|]+) \\|$")
	method := regexp.MustCompile("`([A-Z]+)`")
	for line := range strings.Lines(string(data)) {
		m := row.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		for _, mm := range method.FindAllStringSubmatch(m[1], -1) {
			documented[mm[1]+" "+m[2]] = strings.TrimSpace(m[3])
		}
	}
	a := testAgent(t)
	live := map[string]string{}
	for _, rt := range a.http.Routes() {
		path := strings.NewReplacer("{id}", ":id", "{name}", ":name", "{path...}", ":path").Replace(rt.Path)
		live[rt.Method+" "+path] = rt.Need.String()
	}
	for route, need := range live {
		must.Eq(t, need, documented[route], must.Sprintf("%s needs %q; %s says %q", route, need, aclConceptsPage, documented[route]))
	}
	for route := range documented {
		_, ok := live[route]
		must.True(t, ok, must.Sprintf("%s documents %s, which the agent does not register", aclConceptsPage, route))
	}
}

// onMockDriver makes the job's task a mock driver task with an empty
// config (the mock driver's keys are not raw_exec's).
func onMockDriver(job map[string]any) {
	task := job["TaskGroups"].([]any)[0].(map[string]any)["Tasks"].([]any)[0].(map[string]any)
	task["Driver"] = "mock_driver"
	task["Config"] = map[string]any{}
}
