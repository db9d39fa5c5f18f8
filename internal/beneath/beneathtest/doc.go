// Package beneathtest is what the tests of code that writes a task's
// directory share to attack it as a task would: a directory standing for
// one of the machine's, to plant links to, and the check that nothing
// reached it.
//
// # What it owns, and what it must not import
//
// It owns test helpers only; only tests import it. It imports nothing of
// ours.
package beneathtest
