package taskrunner

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/structs"
)

// plainDriver mounts nothing, as raw_exec; mountingDriver mounts volumes.
type plainDriver struct{ drivers.Driver }

type mountingDriver struct{ drivers.Driver }

func (mountingDriver) MountsVolumes() bool { return true }

func volumeAlloc(index uint, vols map[string]*structs.VolumeRequest, mounts ...*structs.VolumeMount) (*structs.Allocation, *structs.Task) {
	task := &structs.Task{Name: "t", Driver: "docker", VolumeMounts: mounts}
	job := &structs.Job{ID: "j", TaskGroups: []*structs.TaskGroup{{Name: "g", Volumes: vols, Tasks: []*structs.Task{task}}}}
	return &structs.Allocation{Name: structs.AllocName("j", "g", index), TaskGroup: "g", Job: job}, task
}

func TestVolumeMounts_Resolve(t *testing.T) {
	node := &structs.Node{HostVolumes: map[string]*structs.ClientHostVolume{
		"data":    {Path: "/srv/data"},
		"ro":      {Path: "/srv/ro", ReadOnly: true},
		"disk[1]": {Path: "/srv/disk1"},
	}}
	alloc, task := volumeAlloc(1, map[string]*structs.VolumeRequest{
		"data": {Name: "data", Type: "host", Source: "data"},
		"rod":  {Name: "rod", Type: "host", Source: "data", ReadOnly: true},
		"ro":   {Name: "ro", Type: "host", Source: "ro", ReadOnly: true},
		"disk": {Name: "disk", Type: "host", Source: "disk", PerAlloc: true},
	},
		&structs.VolumeMount{Volume: "data", Destination: "/a", PropagationMode: "private"},
		&structs.VolumeMount{Volume: "data", Destination: "/b", ReadOnly: true},
		&structs.VolumeMount{Volume: "rod", Destination: "/c"},
		&structs.VolumeMount{Volume: "ro", Destination: "/d"},
		&structs.VolumeMount{Volume: "disk", Destination: "/e"},
	)
	got, err := volumeMounts(mountingDriver{}, alloc, task, node)
	must.NoError(t, err)
	must.Eq(t, []*drivers.MountConfig{
		{TaskPath: "/a", HostPath: "/srv/data", PropagationMode: "private"},
		{TaskPath: "/b", HostPath: "/srv/data", Readonly: true},
		{TaskPath: "/c", HostPath: "/srv/data", Readonly: true},
		{TaskPath: "/d", HostPath: "/srv/ro", Readonly: true},
		{TaskPath: "/e", HostPath: "/srv/disk1"},
	}, got)

	none, err := volumeMounts(plainDriver{}, alloc, &structs.Task{Name: "other", Driver: "raw_exec"}, node)
	must.NoError(t, err)
	must.Nil(t, none)
}

func TestVolumeMounts_Refused(t *testing.T) {
	node := &structs.Node{HostVolumes: map[string]*structs.ClientHostVolume{"data": {Path: "/srv/data"}}}
	vols := map[string]*structs.VolumeRequest{
		"data": {Name: "data", Type: "host", Source: "data"},
		"disk": {Name: "disk", Type: "host", Source: "data", PerAlloc: true},
	}

	alloc, task := volumeAlloc(0, vols, &structs.VolumeMount{Volume: "data", Destination: "/d"})
	task.Driver = "raw_exec"
	_, err := volumeMounts(plainDriver{}, alloc, task, node)
	must.EqError(t, err, `volumes: task driver "raw_exec" cannot mount volumes, and task "t" has volume_mount blocks; use a driver that mounts them, such as exec or docker`)

	alloc, task = volumeAlloc(0, vols, &structs.VolumeMount{Volume: "disk", Destination: "/d"})
	_, err = volumeMounts(mountingDriver{}, alloc, task, node)
	must.EqError(t, err, `volumes: volume_mount "disk" at "/d": this node has no host volume "data[0]"`)

	alloc, task = volumeAlloc(0, vols, &structs.VolumeMount{Volume: "gone", Destination: "/d"})
	_, err = volumeMounts(mountingDriver{}, alloc, task, node)
	must.EqError(t, err, `volumes: volume_mount "gone" at "/d": group "g" has no volume "gone"`)

	alloc, task = volumeAlloc(0, vols, &structs.VolumeMount{Volume: "data", Destination: "/d"})
	_, err = volumeMounts(mountingDriver{}, alloc, task, nil)
	must.EqError(t, err, `volumes: volume_mount "data" at "/d": this node has no host volume "data"`)
}
