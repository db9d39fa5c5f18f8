package agent

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

func TestVarsList_pagesAndNamespaces(t *testing.T) {
	a := testAgent(t)
	waitForKeyring(t, a, "")
	must.Eq(t, http.StatusOK, do(t, a, http.MethodPut, "/v1/namespace/team", api.Namespace{Name: "team"}).code)
	for _, p := range []string{"/v1/var/a/1", "/v1/var/a/2", "/v1/var/b/1", "/v1/var/a/3?namespace=team"} {
		resp := do(t, a, http.MethodPut, p, api.Variable{Items: api.VariableItems{"k": "item-value"}})
		must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	}
	list := func(path string) ([]api.VariableMetadata, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, agentURL(a)+path, nil)
		must.NoError(t, err)
		r, err := agentHTTPClient(a).Do(req)
		must.NoError(t, err)
		defer r.Body.Close()
		must.Eq(t, http.StatusOK, r.StatusCode)
		var out []api.VariableMetadata
		must.NoError(t, json.NewDecoder(r.Body).Decode(&out))
		return out, r.Header.Get("X-Nomad-NextToken")
	}
	paths := func(ms []api.VariableMetadata) (out []string) {
		for _, m := range ms {
			out = append(out, m.Namespace+":"+m.Path)
		}
		return out
	}
	got, next := list("/v1/vars?prefix=a/&per_page=1")
	must.Eq(t, []string{"default:a/1"}, paths(got))
	must.Eq(t, "a/2", next)
	got, next = list("/v1/vars?prefix=a/&next_token=a/2")
	must.Eq(t, []string{"default:a/2"}, paths(got))
	must.Eq(t, "", next)
	got, next = list("/v1/vars?namespace=*&per_page=3")
	must.Eq(t, []string{"default:a/1", "default:a/2", "default:b/1"}, paths(got))
	must.Eq(t, "team.a/3", next)
	got, _ = list("/v1/vars?namespace=*&next_token=team.a/3")
	must.Eq(t, []string{"team:a/3"}, paths(got))

	resp := do(t, a, http.MethodGet, "/v1/vars", nil)
	must.StrNotContains(t, resp.String(), "item-value", must.Sprint("a list shows items"))
	must.Eq(t, http.StatusBadRequest, do(t, a, http.MethodGet, "/v1/vars?per_page=-1", nil).code)
}
