package state

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

func TestPeriodicLaunch(t *testing.T) {
	s := newStore(t)
	first := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	must.NoError(t, s.UpsertPeriodicLaunch(10, &PeriodicLaunch{ID: "cron", Namespace: "default", Launch: first}))
	must.NoError(t, s.UpsertPeriodicLaunch(11, &PeriodicLaunch{ID: "cron", Namespace: "other", Launch: first}))

	next := first.Add(time.Minute)
	must.NoError(t, s.UpsertPeriodicLaunch(20, &PeriodicLaunch{ID: "cron", Namespace: "default", Launch: next}))

	got, err := s.PeriodicLaunchByID(nil, "default", "cron")
	must.NoError(t, err)
	must.Eq(t, &PeriodicLaunch{ID: "cron", Namespace: "default", Launch: next, CreateIndex: 10, ModifyIndex: 20}, got)

	all, err := s.PeriodicLaunches(nil)
	must.NoError(t, err)
	must.Len(t, 2, all)
	must.Eq(t, "other", all[1].Namespace)

	missing, err := s.PeriodicLaunchByID(nil, "default", "nope")
	must.NoError(t, err)
	must.Nil(t, missing)

	must.ErrorContains(t, s.UpsertPeriodicLaunch(21, nil), "launch is nil")
	must.ErrorContains(t, s.UpsertPeriodicLaunch(21, &PeriodicLaunch{Namespace: "default"}), "no job ID")
	must.ErrorContains(t, s.UpsertPeriodicLaunch(21, &PeriodicLaunch{ID: "cron"}), "no namespace")
}
