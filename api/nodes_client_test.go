package api

import (
	"net/url"
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

func TestNodes_Endpoints(t *testing.T) {
	runEndpointCases(t, []endpointCase{
		{
			name: "List",
			reply: reply{body: `[{"ID":"n1","Name":"laptop","Address":"127.0.0.1","Datacenter":"dc1","NodePool":"default",
				"Status":"ready","SchedulingEligibility":"eligible","Drivers":{"raw_exec":{"Detected":true,"Healthy":true}}}]`},
			call: func(t *testing.T, c *Client) {
				nodes, _, err := c.Nodes().List(nil)
				must.NoError(t, err)
				must.Len(t, 1, nodes)
				must.Eq(t, NodeStatusReady, nodes[0].Status)
				must.True(t, nodes[0].Drivers["raw_exec"].Healthy)
			},
			want: wantRequest{method: "GET", path: "/v1/nodes"},
		},
		{
			name:  "PrefixList",
			reply: reply{body: `[]`},
			call: func(t *testing.T, c *Client) {
				_, _, err := c.Nodes().PrefixList("n")
				must.NoError(t, err)
			},
			want: wantRequest{method: "GET", path: "/v1/nodes", query: url.Values{"prefix": {"n"}}},
		},
		{
			name:  "Info",
			reply: reply{body: `{"ID":"n1","HTTPAddr":"127.0.0.1:4646","NodeResources":{"Cpu":{"CpuShares":8000},"Memory":{"MemoryMB":16384}}}`},
			call: func(t *testing.T, c *Client) {
				n, _, err := c.Nodes().Info("n1", nil)
				must.NoError(t, err)
				must.Eq(t, "127.0.0.1:4646", n.HTTPAddr)
				must.Eq(t, int64(16384), n.NodeResources.Memory.MemoryMB)
			},
			want: wantRequest{method: "GET", path: "/v1/node/n1"},
		},
		{
			name:  "Allocations",
			reply: reply{body: `[{"ID":"a1","NodeID":"n1","Job":{"ID":"maxrun"}}]`},
			call: func(t *testing.T, c *Client) {
				allocs, _, err := c.Nodes().Allocations("n1", &QueryOptions{WaitIndex: 9})
				must.NoError(t, err)
				must.Eq(t, "maxrun", *allocs[0].Job.ID)
			},
			want: wantRequest{method: "GET", path: "/v1/node/n1/allocations", query: url.Values{"index": {"9"}}},
		},
		{
			name:  "ToggleEligibility on",
			reply: reply{body: `{"NodeModifyIndex":61,"EvalIDs":["e1"],"EvalCreateIndex":61,"Index":61}`, headers: map[string]string{"X-Nomad-Index": "61"}},
			call: func(t *testing.T, c *Client) {
				resp, err := c.Nodes().ToggleEligibility("n1", true, nil)
				must.NoError(t, err)
				must.Eq(t, []string{"e1"}, resp.EvalIDs)
				must.Eq(t, uint64(61), resp.NodeModifyIndex)
				must.Eq(t, uint64(61), resp.LastIndex)
			},
			want: wantRequest{method: "POST", path: "/v1/node/n1/eligibility", body: `{"NodeID":"n1","Eligibility":"eligible"}`},
		},
		{
			name:  "ToggleEligibility off",
			reply: reply{body: `{}`},
			call: func(t *testing.T, c *Client) {
				_, err := c.Nodes().ToggleEligibility("n1", false, nil)
				must.NoError(t, err)
			},
			want: wantRequest{method: "POST", path: "/v1/node/n1/eligibility", body: `{"NodeID":"n1","Eligibility":"ineligible"}`},
		},
		{
			name:  "UpdateDrain starts a drain",
			reply: reply{body: `{"NodeModifyIndex":70,"EvalIDs":["e1","e2"]}`},
			call: func(t *testing.T, c *Client) {
				spec := &DrainSpec{Deadline: time.Hour, IgnoreSystemJobs: true}
				resp, err := c.Nodes().UpdateDrain("n1", spec, false, nil)
				must.NoError(t, err)
				must.Len(t, 2, resp.EvalIDs)
			},
			want: wantRequest{
				method: "POST", path: "/v1/node/n1/drain",
				body: `{"NodeID":"n1","DrainSpec":{"Deadline":3600000000000,"IgnoreSystemJobs":true},"MarkEligible":false}`,
			},
		},
		{
			name:  "UpdateDrain cancels a drain",
			reply: reply{body: `{}`},
			call: func(t *testing.T, c *Client) {
				_, err := c.Nodes().UpdateDrain("n1", nil, true, nil)
				must.NoError(t, err)
			},
			want: wantRequest{method: "POST", path: "/v1/node/n1/drain", body: `{"NodeID":"n1","DrainSpec":null,"MarkEligible":true}`},
		},
	})
}
