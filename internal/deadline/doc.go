/*
Package deadline owns the one timer every deadline of Drover runs on: the
group's and the task's max_run_duration on the client, their warnings,
and the deadlines to come (pending, job-wide, finish-by) on the servers.

A Timer calls its function once when the instant it is armed at comes.
Arm moves an armed timer; Stop disarms it and returns only once no call
of the function is under way, so that a caller holding locks the function
needs can reason about what runs after Stop:

	var t deadline.Timer
	t.Arm(createTime.Add(budget), kill) // an instant already passed calls kill before Arm returns
	...
	t.Arm(createTime.Add(newBudget), kill) // moved: one call, at the new instant
	...
	t.Stop() // no call of kill is under way or to come

An instant usually comes from a wall clock (a creation time the servers
recorded); the time left is taken from it once, when the timer is armed,
and the timer then runs on the monotonic clock, so that a step of the wall
clock does not move the call.

The package imports nothing but the standard library, so that servers and
clients alike can use it: it must never import a package of Drover's.
*/
package deadline
