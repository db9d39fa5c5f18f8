package api

import (
	"net/url"
	"testing"

	"github.com/shoenig/test/must"
)

func TestEvaluations_Endpoints(t *testing.T) {
	runEndpointCases(t, []endpointCase{
		{
			name:  "List",
			reply: reply{body: `[{"ID":"e1","Status":"complete"},{"ID":"e2","Status":"blocked"}]`},
			call: func(t *testing.T, c *Client) {
				evals, _, err := c.Evaluations().List(nil)
				must.NoError(t, err)
				must.Len(t, 2, evals)
				must.Eq(t, EvalStatusBlocked, evals[1].Status)
			},
			want: wantRequest{method: "GET", path: "/v1/evaluations"},
		},
		{
			name:  "PrefixList",
			reply: reply{body: `[]`},
			call: func(t *testing.T, c *Client) {
				_, _, err := c.Evaluations().PrefixList("e1")
				must.NoError(t, err)
			},
			want: wantRequest{method: "GET", path: "/v1/evaluations", query: url.Values{"prefix": {"e1"}}},
		},
		{
			name: "Info with related evaluations",
			reply: reply{body: `{"ID":"e1","Status":"complete","Wait":5000000000,
				"FailedTGAllocs":{"maxrun":{"NodesEvaluated":3,"NodesExhausted":3,"DimensionExhausted":{"memory":3}}},
				"RelatedEvals":[{"ID":"e2","Status":"blocked"}]}`},
			call: func(t *testing.T, c *Client) {
				q := &QueryOptions{Params: map[string]string{"related": "true"}}
				ev, _, err := c.Evaluations().Info("e1", q)
				must.NoError(t, err)
				must.Eq(t, "e2", ev.RelatedEvals[0].ID)
				must.Eq(t, 3, ev.FailedTGAllocs["maxrun"].DimensionExhausted["memory"])
				must.Eq(t, int64(5e9), int64(ev.Wait))
			},
			want: wantRequest{method: "GET", path: "/v1/evaluation/e1", query: url.Values{"related": {"true"}}},
		},
		{
			name:  "Allocations",
			reply: reply{body: `[{"ID":"a1","EvalID":"e1"}]`},
			call: func(t *testing.T, c *Client) {
				allocs, _, err := c.Evaluations().Allocations("e1", nil)
				must.NoError(t, err)
				must.Eq(t, "e1", allocs[0].EvalID)
			},
			want: wantRequest{method: "GET", path: "/v1/evaluation/e1/allocations"},
		},
	})
}
