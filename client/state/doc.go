/*
Package state persists what a client needs to pick its allocations up
again after the agent restarts: the allocations, each alloc runner's own
state (its kill reason), and each task runner's state and driver handle.

# What it owns, and what it must not import

It owns the format of the client's data dir (a bbolt file) and what reads
every earlier format: a value stored never changes its meaning. It
decides nothing about the allocations it stores.

It imports drivers (for the task handle) and structs; it must not import
the alloc or task runners that store state through it, nor the client.
*/
package state
