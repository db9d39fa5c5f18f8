/*
Package taskrunner runs one task of an allocation: it prepares the task
(directories, environment, artifacts), starts it with its driver,
supervises it, applies the restart policy, kills it on request or at its
own max_run_duration, records task events, and persists enough to
re-attach to the task after an agent restart.

# What it owns, and what it must not import

It owns one task's run: its prestart hooks (hooks.go says their calling
contract), its state and events, its restarts, its kill (kill_signal,
kill_timeout, shutdown_delay), and its own deadline and warning
(max_run.go), on an internal/deadline timer, and the service checks of
each run (service_checks_hook.go: client/servicecheck runs them; a
check_restart comes back as a restart that counts against the restart
policy). When the task may start,
and when the whole allocation is killed, is the alloc runner's to say,
through the start gate and Kill.

It imports client/allocdir, client/servicecheck, client/state, drivers,
structs and internal/; it must not import client/allocrunner (which drives it) or
the client, and talks to a driver only through the drivers interface,
never to one driver's package.
*/
package taskrunner
