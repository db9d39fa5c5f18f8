package command

import (
	"regexp"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

func TestAllocAddresses(t *testing.T) {
	must.Eq(t, "", allocAddresses(&api.Allocation{}))
	alloc := &api.Allocation{AllocatedResources: &api.AllocatedResources{Shared: api.AllocatedSharedResources{
		Networks: []*api.NetworkResource{{
			Mode: "host", IP: "127.0.0.1",
			ReservedPorts: []api.Port{{Label: "http", Value: 8080, To: 80}},
			DynamicPorts:  []api.Port{{Label: "metrics", Value: 23456}},
		}},
	}}}
	got := allocAddresses(alloc)
	must.StrContains(t, got, "Allocation Addresses:\n")
	must.RegexMatch(t, regexp.MustCompile(`(?m)^Label\s+Dynamic\s+Address$`), got)
	must.RegexMatch(t, regexp.MustCompile(`(?m)^http\s+no\s+127\.0\.0\.1:8080 -> 80$`), got)
	must.RegexMatch(t, regexp.MustCompile(`(?m)^metrics\s+yes\s+127\.0\.0\.1:23456$`), got)
}
