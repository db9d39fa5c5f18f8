package convert

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/nomad/stream"
	"github.com/drover-io/drover/structs"
)

func TestEncodeEvent(t *testing.T) {
	maxRun := 10 * time.Second
	job := &structs.Job{ID: "maxrun", Namespace: "default", Type: structs.JobTypeBatch,
		TaskGroups: []*structs.TaskGroup{{Name: "maxrun", MaxRunDuration: &maxRun}}}
	alloc := &structs.Allocation{ID: "a1", Namespace: "default", JobID: "maxrun", Job: job, TaskGroup: "maxrun",
		CreateTime: time.Unix(1700000000, 0).UnixNano(), ClientStatus: structs.AllocClientStatusComplete,
		ClientDescription: structs.AllocTimeoutReasonMaxRunDuration}
	e := &stream.Event{Topic: stream.TopicAllocation, Type: stream.TypeAllocationUpdated, Key: "a1",
		Namespace: "default", FilterKeys: []string{"maxrun"}, Index: 42, Payload: alloc}

	prefix := []byte("before\n")
	out, err := AppendEventFrame(prefix, &stream.Batch{Index: 42, Events: []*stream.Event{e, e}})
	must.NoError(t, err)
	must.Eq(t, "before\n", string(out[:len(prefix)]), must.Sprint("appended after what the buffer held"))
	frame := out[len(prefix):]
	must.Eq(t, '\n', frame[len(frame)-1])
	must.Eq(t, 1, bytes.Count(frame, []byte{'\n'}), must.Sprint("one line"))
	var got struct {
		Index  uint64
		Events []struct {
			Topic, Type, Key, Namespace string
			FilterKeys                  []string
			Index                       uint64
			Payload                     map[string]map[string]any
		}
	}
	must.NoError(t, json.Unmarshal(frame, &got))
	must.Eq(t, 42, got.Index)
	must.Len(t, 2, got.Events)
	ev := got.Events[0]
	must.Eq(t, "Allocation", ev.Topic)
	must.Eq(t, "AllocationUpdated", ev.Type)
	must.Eq(t, []string{"maxrun"}, ev.FilterKeys)
	a := ev.Payload["Allocation"]
	must.Nil(t, a["Job"])
	must.Eq[any](t, true, a["MaxRunExceeded"])
	must.Eq[any](t, float64(time.Unix(1700000010, 0).UnixNano()), a["MaxRunDeadline"])

	purged := &stream.Event{Topic: stream.TopicJob, Type: stream.TypeJobDeregistered, Key: "maxrun", Payload: job, Deleted: true}
	encoded, err := encodeEvent(purged)
	must.NoError(t, err)
	must.StrContains(t, string(encoded), `"Deleted":true`)

	bad := &stream.Event{Topic: stream.TopicJob, Type: stream.TypeJobRegistered, Key: "x", Payload: "what"}
	_, err = encodeEvent(bad)
	must.ErrorContains(t, err, "payload of unknown type string")
	out, err = AppendEventFrame(prefix, &stream.Batch{Index: 43, Events: []*stream.Event{purged, bad}})
	must.ErrorContains(t, err, "payload of unknown type string")
	must.Eq(t, "before\n", string(out), must.Sprint("no partial frame"))
}
