// Package drivertest is what the tests of the task drivers share to drive
// any drivers.Driver.
//
// # What it owns, and what it must not import
//
// It owns test helpers only; only tests import it. It imports drivers
// (the interface) and nothing else of ours: never one driver's package,
// so that every driver's tests can use it.
package drivertest
