package convert

import (
	"slices"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/structs"
)

// The parameterized block, a task's dispatch_payload block and the
// dispatch fields of a job, both ways.

func parameterizedFromAPI(in *api.ParameterizedJobConfig) *structs.ParameterizedJobConfig {
	if in == nil {
		return nil
	}
	return &structs.ParameterizedJobConfig{
		Payload:           in.Payload,
		MetaRequired:      slices.Clone(in.MetaRequired),
		MetaOptional:      slices.Clone(in.MetaOptional),
		MaxRunDurationMax: clonePtr(in.MaxRunDurationMax),
	}
}

func parameterizedToAPI(p *structs.ParameterizedJobConfig) *api.ParameterizedJobConfig {
	if p == nil {
		return nil
	}
	return &api.ParameterizedJobConfig{
		Payload:           p.Payload,
		MetaRequired:      slices.Clone(p.MetaRequired),
		MetaOptional:      slices.Clone(p.MetaOptional),
		MaxRunDurationMax: clonePtr(p.MaxRunDurationMax),
	}
}

func dispatchPayloadFromAPI(in *api.DispatchPayloadConfig) *structs.DispatchPayloadConfig {
	if in == nil {
		return nil
	}
	return &structs.DispatchPayloadConfig{File: in.File}
}

func dispatchPayloadToAPI(d *structs.DispatchPayloadConfig) *api.DispatchPayloadConfig {
	if d == nil {
		return nil
	}
	return &api.DispatchPayloadConfig{File: d.File}
}

// dispatchFromAPI sets the job's parameterized block and the fields a
// dispatch sets.
func dispatchFromAPI(j *structs.Job, in *api.Job) {
	j.ParameterizedJob = parameterizedFromAPI(in.ParameterizedJob)
	j.Payload = slices.Clone(in.Payload)
	j.DispatchIdempotencyToken = Deref(in.DispatchIdempotencyToken)
	j.DispatchMaxRunDuration = clonePtr(in.DispatchMaxRunDuration)
}

// dispatchToAPI is dispatchFromAPI the other way.
func dispatchToAPI(out *api.Job, j *structs.Job) {
	out.ParameterizedJob = parameterizedToAPI(j.ParameterizedJob)
	out.Payload = slices.Clone(j.Payload)
	if j.DispatchIdempotencyToken != "" {
		out.DispatchIdempotencyToken = new(j.DispatchIdempotencyToken)
	}
	out.DispatchMaxRunDuration = clonePtr(j.DispatchMaxRunDuration)
}
