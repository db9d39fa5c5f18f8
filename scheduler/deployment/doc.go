// Package deployment decides, for one scheduler run, what a job's update
// blocks ask of it: which deployment paces the job version being placed
// (the one stored, or a new one the plan creates), which deployments of
// older versions the plan cancels, and how many of a group's allocations
// a rolling update may replace now: max_parallel, less those of the
// deployment that are placed but not yet healthy.
//
// It only reads: the scheduler puts what it decides into its plan, and
// the server's deployment watcher (nomad/deploymentwatcher) moves a
// deployment on as its allocations become healthy or not.
package deployment
