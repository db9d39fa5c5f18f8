package agent

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/command/agent/config"
)

// aclEnabled turns ACLs on in a test agent's configuration.
func aclEnabled(c *config.Config) { c.ACL.Enabled = true }

// aclAgent starts a test agent with ACLs on, bootstraps it and returns it
// with the management secret.
func aclAgent(t *testing.T, mutate ...func(*config.Config)) (*Agent, string) {
	t.Helper()
	a := testAgent(t, append([]func(*config.Config){aclEnabled, unscheduled}, mutate...)...)
	resp := do(t, a, http.MethodPut, "/v1/acl/bootstrap", nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	var token api.ACLToken
	must.NoError(t, json.Unmarshal(resp.body, &token))
	return a, token.SecretID
}

// tokenWith writes a policy of the given rules and a client token that
// names it, through the HTTP API, and returns the token.
func tokenWith(t *testing.T, a *Agent, mgmt, name, rules string) *api.ACLToken {
	t.Helper()
	resp := doAs(t, a, mgmt, http.MethodPut, "/v1/acl/policy/"+name, api.ACLPolicy{Name: name, Rules: rules})
	must.Eq(t, http.StatusOK, resp.code, must.Sprintf("policy %s: %s", name, resp))
	resp = doAs(t, a, mgmt, http.MethodPut, "/v1/acl/token", api.ACLToken{Name: name, Type: "client", Policies: []string{name}})
	must.Eq(t, http.StatusOK, resp.code, must.Sprintf("token %s: %s", name, resp))
	var token api.ACLToken
	must.NoError(t, json.Unmarshal(resp.body, &token))
	return &token
}

// managementToken creates another management token and returns it.
func managementToken(t *testing.T, a *Agent, mgmt string) *api.ACLToken {
	t.Helper()
	resp := doAs(t, a, mgmt, http.MethodPut, "/v1/acl/token", api.ACLToken{Name: "another", Type: "management"})
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	var token api.ACLToken
	must.NoError(t, json.Unmarshal(resp.body, &token))
	return &token
}

// globalRules are the rules outside namespaces, at their highest.
var globalRules = []string{"node", "agent", "operator", "quota", "plugin"}

// globalRulesBut writes every global rule at write except skip.
func globalRulesBut(skip string) string {
	var b strings.Builder
	for _, rule := range globalRules {
		if rule != skip {
			fmt.Fprintf(&b, "%s { policy = \"write\" }\n", rule)
		}
	}
	return b.String()
}

// namespaceRules grants caps in every namespace.
func namespaceRules(caps []string) string {
	quoted := make([]string, len(caps))
	for i, c := range caps {
		quoted[i] = fmt.Sprintf("%q", c)
	}
	return fmt.Sprintf("namespace \"*\" {\n  capabilities = [%s]\n}\n", strings.Join(quoted, ", "))
}

// allNamespaceCapsBut is every namespace capability except deny and
// those listed.
func allNamespaceCapsBut(except ...string) []string {
	return slices.DeleteFunc(acl.NamespaceCapabilities(), func(c string) bool {
		return c == acl.CapDeny || slices.Contains(except, c)
	})
}

// everything is what the route test's lacking tokens start from: all a
// client token can hold. Each takes out of it what its route needs, so
// that a route checking the wrong thing would let it in.
var everything = namespaceRules(allNamespaceCapsBut()) + globalRulesBut("")

// variablesRules grants caps on every variable path in every namespace,
// and all the namespace capabilities: what a variables route checks is
// the variables rule alone.
func variablesRules(caps ...string) string {
	quoted := make([]string, len(caps))
	for i, c := range caps {
		quoted[i] = fmt.Sprintf("%q", c)
	}
	return fmt.Sprintf("namespace \"*\" {\n  capabilities = [%s]\n  variables {\n    path \"*\" { capabilities = [%s] }\n  }\n}\n",
		strings.Join(namespaceCapsQuoted(), ", "), strings.Join(quoted, ", "))
}

func namespaceCapsQuoted() []string {
	var out []string
	for _, c := range allNamespaceCapsBut() {
		out = append(out, fmt.Sprintf("%q", c))
	}
	return out
}

// variablesCapsBut is every variables capability except deny and skip,
// and except list when skip implies it.
func variablesCapsBut(skip string) []string {
	caps := []string{acl.VariablesRead, acl.VariablesWrite, acl.VariablesDestroy, acl.VariablesList}
	return slices.DeleteFunc(caps, func(c string) bool { return c == skip })
}

// dispositionRules are the route test's rules for a route that needs the
// disposition have of a global rule: the holder has just that, the lacker
// everything else and only lack of that rule.
func dispositionRules(rule, have, lack string) (holding, lacking string) {
	own := func(policy string) string { return fmt.Sprintf("%s { policy = %q }\n", rule, policy) }
	return own(have), namespaceRules(allNamespaceCapsBut()) + globalRulesBut(rule) + own(lack)
}
