// Package periodic launches, on the leader, the children of periodic jobs
// when their cron specs come due: the Dispatcher tracks each periodic job
// and its next launch, and calls the Launcher it is handed, which the
// server implements through raft. A job that prohibits overlap skips a
// launch while an earlier child still runs.
//
// It also names and derives the children (ChildID, DeriveChild). It must
// not import package nomad or any of its other subpackages.
package periodic
