package deploymentwatcher

import (
	"time"

	"github.com/drover-io/drover/structs"
)

// Progress is what one look at a running deployment found.
type Progress struct {
	// Deployment is a copy with the groups' counts, and the status when
	// it became successful.
	Deployment *structs.Deployment
	// Changed is set when Deployment differs from the stored one.
	Changed bool
	// Progressed is set when an allocation became healthy: the scheduler
	// may take the next step.
	Progressed bool
	// Failed, when not empty, is why the deployment fails.
	Failed string
	// NextDeadline is the earliest progress deadline still ahead, zero
	// when none is.
	NextDeadline time.Time
}

// Assess counts the deployment's allocations, from allocs (the job's),
// and decides what follows at now.
func Assess(d *structs.Deployment, allocs []*structs.Allocation, now time.Time) Progress {
	p := Progress{Deployment: d.Copy()}
	complete := true
	for name, s := range p.Deployment.TaskGroups {
		placed, healthy, unhealthy := 0, 0, 0
		var lastHealthy time.Time
		older := false
		for _, a := range allocs {
			if a.TaskGroup != name {
				continue
			}
			if a.DeploymentID != d.ID {
				if a.Job != nil && a.Job.Version != d.JobVersion && !a.TerminalStatus() {
					older = true
				}
				continue
			}
			placed++
			switch {
			case a.DeploymentStatus.IsHealthy():
				healthy++
				if a.DeploymentStatus.Timestamp.After(lastHealthy) {
					lastHealthy = a.DeploymentStatus.Timestamp
				}
			case a.DeploymentStatus.IsUnhealthy():
				unhealthy++
			}
		}
		if healthy > s.HealthyAllocs {
			p.Progressed = true
			if s.ProgressDeadline > 0 {
				from := lastHealthy
				if from.IsZero() || from.After(now) {
					from = now
				}
				s.RequireProgressBy = from.Add(s.ProgressDeadline)
			}
		}
		if placed != s.PlacedAllocs || healthy != s.HealthyAllocs || unhealthy != s.UnhealthyAllocs {
			p.Changed = true
		}
		s.PlacedAllocs, s.HealthyAllocs, s.UnhealthyAllocs = placed, healthy, unhealthy
		done := healthy >= s.DesiredTotal && !older
		if !done {
			complete = false
		}
		switch {
		case unhealthy > 0:
			p.Failed = structs.DeploymentDescFailedAllocs
		case !done && !s.RequireProgressBy.IsZero() && !now.Before(s.RequireProgressBy):
			if p.Failed == "" {
				p.Failed = structs.DeploymentDescProgressDeadline
			}
		case !done && !s.RequireProgressBy.IsZero():
			if p.NextDeadline.IsZero() || s.RequireProgressBy.Before(p.NextDeadline) {
				p.NextDeadline = s.RequireProgressBy
			}
		}
	}
	if p.Failed == "" && complete {
		p.Deployment.Status = structs.DeploymentStatusSuccessful
		p.Deployment.StatusDescription = structs.DeploymentDescSuccessful
		p.Changed = true
		p.NextDeadline = time.Time{}
	}
	if p.Changed {
		p.Deployment.ModifyTime = now.UnixNano()
	}
	return p
}
