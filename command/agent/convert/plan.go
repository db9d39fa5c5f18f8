package convert

import (
	"maps"
	"slices"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/nomad"
	"github.com/drover-io/drover/structs"
)

// JobPlanResponse is the answer to a job plan: Nomad's JobPlanResponse,
// whose JSON also carries the index the dry run read.
type JobPlanResponse struct {
	api.JobPlanResponse
	Index uint64
}

// PlanResponseToAPI converts the outcome of a dry run into its wire form.
func PlanResponseToAPI(resp *nomad.JobPlanResponse, warnings string) *JobPlanResponse {
	return &JobPlanResponse{
		JobPlanResponse: api.JobPlanResponse{
			JobModifyIndex: resp.JobModifyIndex,
			CreatedEvals:   convertSlice(resp.CreatedEvals, EvalToAPI),
			Diff:           jobDiffToAPI(resp.Diff),
			Annotations: &api.PlanAnnotations{
				DesiredTGUpdates: convertMap(resp.DesiredTGUpdates, desiredUpdatesToAPI),
				// Drover does not preempt, so a plan preempts nothing.
				PreemptedAllocs: nil,
			},
			FailedTGAllocs:     convertMap(resp.FailedTGAllocs, allocMetricToAPI),
			NextPeriodicLaunch: resp.NextPeriodicLaunch,
			Warnings:           warnings,
		},
		Index: resp.Index,
	}
}

func desiredUpdatesToAPI(u *structs.DesiredUpdates) *api.DesiredUpdates {
	if u == nil {
		return nil
	}
	out := api.DesiredUpdates(*u)
	return &out
}

// jobDiffToAPI converts a job diff into its wire form. It shares no memory
// with d.
func jobDiffToAPI(d *structs.JobDiff) *api.JobDiff {
	if d == nil {
		return nil
	}
	return &api.JobDiff{
		Type:       d.Type,
		ID:         d.ID,
		Fields:     convertSlice(d.Fields, fieldDiffToAPI),
		Objects:    convertSlice(d.Objects, objectDiffToAPI),
		TaskGroups: convertSlice(d.TaskGroups, taskGroupDiffToAPI),
	}
}

// JobDiffsToAPI converts diffs; nil stays nil (null on the wire), as a
// versions query without ?diffs answers.
func JobDiffsToAPI(diffs []*structs.JobDiff) []*api.JobDiff {
	return convertSlice(diffs, jobDiffToAPI)
}

func taskGroupDiffToAPI(d *structs.TaskGroupDiff) *api.TaskGroupDiff {
	if d == nil {
		return nil
	}
	return &api.TaskGroupDiff{
		Type:    d.Type,
		Name:    d.Name,
		Fields:  convertSlice(d.Fields, fieldDiffToAPI),
		Objects: convertSlice(d.Objects, objectDiffToAPI),
		Tasks:   convertSlice(d.Tasks, taskDiffToAPI),
		Updates: maps.Clone(d.Updates),
	}
}

func taskDiffToAPI(d *structs.TaskDiff) *api.TaskDiff {
	if d == nil {
		return nil
	}
	return &api.TaskDiff{
		Type:        d.Type,
		Name:        d.Name,
		Fields:      convertSlice(d.Fields, fieldDiffToAPI),
		Objects:     convertSlice(d.Objects, objectDiffToAPI),
		Annotations: slices.Clone(d.Annotations),
	}
}

func objectDiffToAPI(d *structs.ObjectDiff) *api.ObjectDiff {
	if d == nil {
		return nil
	}
	return &api.ObjectDiff{
		Type:    d.Type,
		Name:    d.Name,
		Fields:  convertSlice(d.Fields, fieldDiffToAPI),
		Objects: convertSlice(d.Objects, objectDiffToAPI),
	}
}

func fieldDiffToAPI(d *structs.FieldDiff) *api.FieldDiff {
	if d == nil {
		return nil
	}
	out := api.FieldDiff(*d)
	out.Annotations = slices.Clone(d.Annotations)
	return &out
}
