package structs

import (
	"testing"

	"github.com/shoenig/test/must"
)

func hostVolume(name string) *VolumeRequest {
	return &VolumeRequest{Name: name, Type: VolumeTypeHost, Source: name}
}

func TestVolumes_Validate(t *testing.T) {
	const g = `Task group "g"`
	for _, tc := range []struct {
		name   string
		volume *VolumeRequest
		mounts []*VolumeMount
		want   []string
	}{
		{name: "host", volume: hostVolume("data"), mounts: []*VolumeMount{{Volume: "data", Destination: "/data", PropagationMode: VolumeMountPropagationPrivate}}},
		{name: "reader access read-only", volume: &VolumeRequest{Name: "data", Type: "host", Source: "d", ReadOnly: true, AccessMode: "single-node-reader-only", AttachmentMode: "file-system"}},
		{name: "csi", volume: &VolumeRequest{Name: "data", Type: "csi", Source: "d"},
			want: []string{g + ` volume "data": type "csi" is not supported: a CSI volume needs a CSI plugin, which Drover cannot run; use a host volume (type = "host")`}},
		{name: "no type", volume: &VolumeRequest{Name: "data", Source: "d"},
			want: []string{g + ` volume "data": type is missing: Drover supports type = "host"`}},
		{name: "no source", volume: &VolumeRequest{Name: "data", Type: "host"},
			want: []string{g + ` volume "data": source is missing: it names the client's host_volume to mount`}},
		{name: "mount options", volume: &VolumeRequest{Name: "data", Type: "host", Source: "d", MountOptions: &VolumeMountOptions{FSType: "ext4"}},
			want: []string{g + ` volume "data": mount_options is for CSI volumes; a host volume takes none`}},
		{name: "reader access writable", volume: &VolumeRequest{Name: "data", Type: "host", Source: "d", AccessMode: "single-node-reader-only"},
			want: []string{g + ` volume "data": access_mode "single-node-reader-only" needs read_only = true`}},
		{name: "block device", volume: &VolumeRequest{Name: "data", Type: "host", Source: "d", AttachmentMode: "block-device"},
			want: []string{g + ` volume "data": attachment_mode "block-device" is not supported: a host volume is mounted as a directory ("file-system")`}},
		{name: "unknown volume", volume: hostVolume("data"), mounts: []*VolumeMount{{Volume: "other", Destination: "/data"}},
			want: []string{g + ` task "t" volume_mount #1: volume "other" is not one of the group's volume blocks`}},
		{name: "relative destination", volume: hostVolume("data"), mounts: []*VolumeMount{{Volume: "data", Destination: "data"}},
			want: []string{g + ` task "t" volume_mount #1: destination "data" is not an absolute path`}},
		{name: "dotdot destination", volume: hostVolume("data"), mounts: []*VolumeMount{{Volume: "data", Destination: "/a/../../etc"}},
			want: []string{g + ` task "t" volume_mount #1: destination "/a/../../etc" is not a clean path (it would be "/etc")`}},
		{name: "root destination", volume: hostVolume("data"), mounts: []*VolumeMount{{Volume: "data", Destination: "/"}},
			want: []string{g + ` task "t" volume_mount #1: destination "/" would replace the task's whole file system`}},
		{name: "same destination", volume: hostVolume("data"), mounts: []*VolumeMount{{Volume: "data", Destination: "/d"}, {Volume: "data", Destination: "/d"}},
			want: []string{g + ` task "t" volume_mount #2: destination "/d" is used by another volume_mount of the task`}},
		{name: "propagation", volume: hostVolume("data"), mounts: []*VolumeMount{{Volume: "data", Destination: "/d", PropagationMode: "shared"}},
			want: []string{g + ` task "t" volume_mount #1: propagation_mode "shared" is not "private", "host-to-task" or "bidirectional"`}},
		{name: "missing mount fields", volume: hostVolume("data"), mounts: []*VolumeMount{{}},
			want: []string{g + ` task "t" volume_mount #1: volume is missing: it names one of the group's volume blocks`, g + ` task "t" volume_mount #1: destination is missing`}},
		{name: "null mount", volume: hostVolume("data"), mounts: []*VolumeMount{nil},
			want: []string{g + ` task "t" volume_mount #1: Missing definition (null)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := validJob("batch")
			j.TaskGroups[0].Volumes = map[string]*VolumeRequest{"data": tc.volume}
			j.TaskGroups[0].Tasks[0].VolumeMounts = tc.mounts
			mustProblems(t, tc.want, j.Validate())
		})
	}
}

func TestVolumes_NameMismatchAndNull(t *testing.T) {
	j := validJob("batch")
	j.TaskGroups[0].Volumes = map[string]*VolumeRequest{"a": hostVolume("b"), "n": nil}
	mustProblems(t, []string{
		`Task group "g" volume "a": Name "b" differs from the name the volume is listed under`,
		`Task group "g" volume "n": Missing definition (null)`,
	}, j.Validate())
}

func TestVolumes_SourceFor(t *testing.T) {
	v := hostVolume("data")
	must.Eq(t, "data", v.SourceFor(3))
	v.PerAlloc = true
	must.Eq(t, "data[3]", v.SourceFor(3))
}

func TestVolumes_CopyDiff(t *testing.T) {
	j := validJob("batch")
	j.TaskGroups[0].Volumes = map[string]*VolumeRequest{"data": hostVolume("data")}
	j.TaskGroups[0].Tasks[0].VolumeMounts = []*VolumeMount{{Volume: "data", Destination: "/d"}}
	c := j.Copy()
	c.TaskGroups[0].Volumes["data"].ReadOnly = true
	c.TaskGroups[0].Tasks[0].VolumeMounts[0].Destination = "/e"
	must.False(t, j.TaskGroups[0].Volumes["data"].ReadOnly)
	must.Eq(t, "/d", j.TaskGroups[0].Tasks[0].VolumeMounts[0].Destination)

	d, err := j.Diff(c, false)
	must.NoError(t, err)
	must.Eq(t, DiffTypeEdited, d.TaskGroups[0].Type)
	must.Eq(t, DiffTypeEdited, d.TaskGroups[0].Tasks[0].Type)
}

func TestVolumes_NodeCopy(t *testing.T) {
	n := &Node{HostVolumes: map[string]*ClientHostVolume{"a": {Path: "/srv/a"}}}
	c := n.Copy()
	c.HostVolumes["a"].ReadOnly = true
	must.False(t, n.HostVolumes["a"].ReadOnly)
}
