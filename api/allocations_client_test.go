package api

import (
	"net/url"
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

func TestAllocations_Endpoints(t *testing.T) {
	alloc := &Allocation{ID: "a1"}
	runEndpointCases(t, []endpointCase{
		{
			name:  "List",
			reply: reply{body: `[{"ID":"a1","JobID":"maxrun","TaskGroup":"maxrun","ClientStatus":"complete","ClientDescription":"allocation exceeded max_run_duration"}]`},
			call: func(t *testing.T, c *Client) {
				allocs, _, err := c.Allocations().List(&QueryOptions{Namespace: "*"})
				must.NoError(t, err)
				must.Len(t, 1, allocs)
				must.Eq(t, "allocation exceeded max_run_duration", allocs[0].ClientDescription)
			},
			want: wantRequest{method: "GET", path: "/v1/allocations", query: url.Values{"namespace": {"*"}}},
		},
		{
			name:  "PrefixList",
			reply: reply{body: `[{"ID":"a1b2"}]`},
			call: func(t *testing.T, c *Client) {
				allocs, _, err := c.Allocations().PrefixList("a1")
				must.NoError(t, err)
				must.Eq(t, "a1b2", allocs[0].ID)
			},
			want: wantRequest{method: "GET", path: "/v1/allocations", query: url.Values{"prefix": {"a1"}}},
		},
		{
			name: "Info",
			reply: reply{body: `{"ID":"a1","NodeID":"n1","CreateTime":1700000000000000000,"MaxRunDeadline":1700000010000000000,
				"MaxRunDuration":10000000000,"MaxRunExceeded":true,
				"TaskStates":{"maxrun":{"State":"dead","Failed":false,"Events":[{"Type":"Killing","DisplayMessage":"allocation exceeded max_run_duration"}]}}}`},
			call: func(t *testing.T, c *Client) {
				got, _, err := c.Allocations().Info("a1", nil)
				must.NoError(t, err)
				must.Eq(t, "n1", got.NodeID)
				must.Eq(t, int64(1700000010000000000), got.MaxRunDeadline)
				must.Eq(t, 10*time.Second, got.MaxRunDuration)
				must.True(t, got.MaxRunExceeded)
				must.Eq(t, "dead", got.TaskStates["maxrun"].State)
			},
			want: wantRequest{method: "GET", path: "/v1/allocation/a1"},
		},
		{
			name:  "Stop",
			reply: reply{body: `{"EvalID":"e7","Index":55}`, headers: map[string]string{"X-Nomad-Index": "55"}},
			call: func(t *testing.T, c *Client) {
				resp, err := c.Allocations().Stop(alloc, nil)
				must.NoError(t, err)
				must.Eq(t, "e7", resp.EvalID)
				must.Eq(t, uint64(55), resp.LastIndex)
			},
			want: wantRequest{method: "POST", path: "/v1/allocation/a1/stop"},
		},
		{
			name:  "Stop takes the index from the body",
			reply: reply{body: `{"EvalID":"e7","Index":56}`},
			call: func(t *testing.T, c *Client) {
				resp, err := c.Allocations().Stop(alloc, &QueryOptions{Params: map[string]string{"no_shutdown_delay": "true"}})
				must.NoError(t, err)
				must.Eq(t, uint64(56), resp.LastIndex)
			},
			want: wantRequest{method: "POST", path: "/v1/allocation/a1/stop", query: url.Values{"no_shutdown_delay": {"true"}}},
		},
		{
			name:  "Restart one task",
			reply: reply{body: `{}`},
			call: func(t *testing.T, c *Client) {
				must.NoError(t, c.Allocations().Restart(alloc, "web", false, nil))
			},
			want: wantRequest{method: "PUT", path: "/v1/client/allocation/a1/restart", body: `{"TaskName":"web","AllTasks":false}`},
		},
		{
			name:  "Restart all tasks",
			reply: reply{body: `{}`},
			call: func(t *testing.T, c *Client) {
				must.NoError(t, c.Allocations().Restart(alloc, "", true, nil))
			},
			want: wantRequest{method: "PUT", path: "/v1/client/allocation/a1/restart", body: `{"TaskName":"","AllTasks":true}`},
		},
		{
			name:  "Signal",
			reply: reply{body: `{}`},
			call: func(t *testing.T, c *Client) {
				must.NoError(t, c.Allocations().Signal(alloc, nil, "web", "SIGHUP"))
			},
			want: wantRequest{method: "PUT", path: "/v1/client/allocation/a1/signal", body: `{"Task":"web","Signal":"SIGHUP"}`},
		},
	})
}

func TestAllocations_BadArguments(t *testing.T) {
	c := newTestClient(t, "127.0.0.1:1")
	_, err := c.Allocations().Stop(nil, nil)
	must.ErrorIs(t, err, errNilAlloc)
	must.ErrorIs(t, c.Allocations().Signal(nil, nil, "", "SIGHUP"), errNilAlloc)
	must.ErrorIs(t, c.Allocations().Restart(nil, "", false, nil), errNilAlloc)
	must.ErrorContains(t, c.Allocations().Restart(&Allocation{ID: "a1"}, "web", true, nil), "not both")
}
