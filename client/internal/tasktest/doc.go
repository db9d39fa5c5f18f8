/*
Package tasktest holds what the tests of the client's runners share: a
task to run and the questions they ask of a task's events.

# What it owns, and what it must not import

It owns test helpers only; no production code imports it. It imports
structs and nothing else of ours: not a driver's package (the caller
names the driver), so that the client tree's import rules hold for it
too.
*/
package tasktest
