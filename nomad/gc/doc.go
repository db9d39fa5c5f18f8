// Package gc decides what the servers' garbage collection removes from
// the cluster state: dead jobs (with their versions, evaluations and
// allocations), old terminal evaluations and allocations, and nodes long
// down. It follows Nomad's thresholds (job_gc_threshold,
// eval_gc_threshold, batch_eval_gc_threshold, node_gc_threshold, run
// every job_gc_interval) and two settings of Drover's own: a job's
// ttl_after_finished and a periodic job's keep_last.
//
// Plan is a pure function of the state's objects and the time; the
// Collector runs it on the leader every interval, or when forced, and
// hands the plan to the server, which writes it through raft. The state
// store checks each deletion again where the entry lands, so that a job
// registered again in between is never lost.
//
// Nothing a running job still needs is collected: an allocation that is
// not terminal on its client, a pending or blocked evaluation, the
// allocations of a batch job that is not dead (they tell the scheduler
// which groups have finished), the newest evaluation of a live job, a
// live periodic or parameterized parent, and a parent while any of its
// children stays.
//
// It must not import package nomad or any of its other subpackages but
// the state store's types.
package gc
