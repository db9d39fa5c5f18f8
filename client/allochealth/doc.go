// Package allochealth decides, on the client, whether an allocation that
// a deployment placed is healthy, as the group's update block defines it,
// and reports that decision with the allocation's client state.
//
// With health_check = "task_states" (and "checks", while Drover runs no
// service checks: see structs.UpdateHealthChecks) an allocation is
// healthy once every task that should be running has run for
// min_healthy_time without a restart, and unhealthy as soon as a task
// fails or the allocation ends, or when healthy_deadline passes first.
// With health_check = "manual" the client decides nothing: an operator
// sets the health through the deployment's allocation-health endpoint.
//
// The decision is made once per allocation and deployment; the servers
// keep the first they hear of.
package allochealth
