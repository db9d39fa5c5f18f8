// Package jobstatus derives each job's status (pending, running, dead)
// from its allocations and evaluations, and runs the leader's updater,
// which is told which jobs and allocations changed and writes the
// statuses that differ from the stored ones.
//
// It reads the state store and writes through the function it is handed;
// it must not import package nomad or any of its other subpackages but
// the state store and logentry.
package jobstatus
