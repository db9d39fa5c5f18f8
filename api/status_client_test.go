package api

import (
	"testing"

	"github.com/shoenig/test/must"
)

func TestStatus_Endpoints(t *testing.T) {
	runEndpointCases(t, []endpointCase{
		{
			name:  "Leader",
			reply: reply{body: `"127.0.0.1:4647"`},
			call: func(t *testing.T, c *Client) {
				leader, err := c.Status().Leader()
				must.NoError(t, err)
				must.Eq(t, "127.0.0.1:4647", leader)
			},
			want: wantRequest{method: "GET", path: "/v1/status/leader"},
		},
		{
			name:  "Peers",
			reply: reply{body: `["10.0.0.1:4647","10.0.0.2:4647","10.0.0.3:4647"]`},
			call: func(t *testing.T, c *Client) {
				peers, err := c.Status().Peers()
				must.NoError(t, err)
				must.Eq(t, []string{"10.0.0.1:4647", "10.0.0.2:4647", "10.0.0.3:4647"}, peers)
			},
			want: wantRequest{method: "GET", path: "/v1/status/peers"},
		},
	})
}

func TestStatus_NotALeaderAddress(t *testing.T) {
	c, _ := newFakeAgent(t, reply{body: `{"leader":"x"}`})
	_, err := c.Status().Leader()
	must.ErrorContains(t, err, "GET /v1/status/leader")
}
