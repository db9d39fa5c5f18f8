package convert

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/structs"
)

func TestVolumes_RoundTrip(t *testing.T) {
	in := map[string]*api.VolumeRequest{
		"data": {Type: "host", Source: "input", ReadOnly: true, PerAlloc: true, AccessMode: "single-node-reader-only"},
		"null": nil,
	}
	got := volumesFromAPI(in)
	must.Eq(t, "data", got["data"].Name) // the key names an unnamed request
	must.Nil(t, got["null"])
	back := volumesToAPI(got)
	must.Eq(t, "input", back["data"].Source)
	must.True(t, back["data"].PerAlloc)

	mounts := volumeMountsFromAPI([]*api.VolumeMount{{Volume: new("data"), Destination: new("/d")}, nil})
	must.Eq(t, []*structs.VolumeMount{{Volume: "data", Destination: "/d", PropagationMode: structs.VolumeMountPropagationPrivate}, nil}, mounts)
	must.Eq(t, []*api.VolumeMount{{Volume: new("data"), Destination: new("/d"), ReadOnly: new(false), PropagationMode: new("private")}, nil},
		volumeMountsToAPI(mounts))
}

func TestVolumes_NodeHostVolumes(t *testing.T) {
	n := NodeToAPI(&structs.Node{HostVolumes: map[string]*structs.ClientHostVolume{"a": {Path: "/srv/a", ReadOnly: true}}})
	must.Eq(t, map[string]*api.HostVolumeInfo{"a": {Path: "/srv/a", ReadOnly: true}}, n.HostVolumes)
}
