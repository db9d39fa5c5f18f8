// Package servicecheck runs the checks of an allocation's services on its
// client: http and tcp probes of the service's address and scripts run in
// a task through its driver, each every interval with its timeout. It
// owns a check's status (passing, warning or critical, moved by
// success_before_passing and the failures_before counts), the
// check_restart count that asks for a task's restart, and the statuses
// the client serves at /v1/client/allocation/:id/checks.
//
// It knows nothing of task or alloc runners: they build the checks of a
// run (Build), start a Set for it and stop it when the run ends; a
// restart is asked through the function they give.
package servicecheck
