// Package scheduler turns an evaluation of a job into a plan: which
// allocations to place, on which nodes, and which to stop or update in
// place. It is pure logic over a read-only view of the cluster state; the
// server's workers run it and commit its plans through the Planner.
//
// There is one scheduler per job type. The batch and service schedulers
// ("generic") keep a group's count of allocations, replace lost ones and
// reschedule failed ones per the group's reschedule policy. The system and
// sysbatch schedulers keep one allocation of each group on every node that
// can run it.
//
// Placement filters nodes by datacenter, node pool, readiness, drivers,
// host volumes (host_volumes.go; per_alloc ones per placement) and
// constraints, once per node, group and evaluation; keeps a per-node index
// of the resources that allocations hold; and ranks a bounded sample of
// the nodes that fit by how tightly the allocation packs them, so that the
// work per placement does not grow with the size of the cluster. A group
// with affinities or spreads (affinity.go, spread.go) has every fitting
// node ranked, their scores averaged with the packing score, as Nomad's
// ranking does.
//
// # What the server provides
//
// The server creates a scheduler per evaluation with NewScheduler and
// calls Process. Its Planner commits plans as structs.Plan describes
// (notably: new placements have a nil Job and run plan.Job; an
// allocation holds resources until it is terminal, desired or client
// side). Process creates evaluations through the Planner:
//   - follow-ups that reschedule failed allocations: Status pending,
//     TriggeredBy "alloc-failure", WaitUntil set; the failed allocations
//     carry their ID in FollowupEvalID. Run them once WaitUntil passes.
//   - blocked evaluations for placements that found no node: Status
//     blocked, TriggeredBy "queued-allocs"; the processed evaluation names
//     it in BlockedEval. Run one again (handing it over with Status still
//     blocked) when capacity may have appeared: a node registered or
//     changed, or an allocation became terminal. If it still cannot place
//     everything the scheduler calls ReblockEval with it instead of
//     creating another. A job may gather several; keeping the newest per
//     job is enough.
//   - after too many partial commits, a "max-plan-attempts" evaluation
//     (Status pending), named in NextEval of the failed evaluation.
//
// Every processed evaluation records QueuedAllocations for each group of
// the job (0 when all were placed), which the job summary reads.
//
// Nodes that join later get system and sysbatch allocations when the
// server evaluates those jobs on a node's registration or change. Periodic
// parent jobs (periodic, no ParentID) have no allocations of their own.
package scheduler
