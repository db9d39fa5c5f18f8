// Package deploymentwatcher moves deployments on, on the leader. For each
// running deployment it counts, per group, the allocations placed in it
// and how many the clients (or an operator) found healthy or unhealthy,
// and writes those counts with what follows from them:
//
//   - a newly healthy allocation creates an evaluation of the job, so
//     that the scheduler replaces the next max_parallel allocations;
//   - an unhealthy allocation, or a group that made no progress by its
//     progress_deadline, fails the deployment; a group with auto_revert
//     then has the job registered again as its latest stable version;
//   - once every group has as many healthy allocations as it wants and
//     none of an older version left, the deployment is successful and
//     its job version stable.
//
// It reads the state and writes through the Cluster it is handed, which
// the server implements. It must not import package nomad or any of its
// other subpackages but the state store and logentry.
package deploymentwatcher
