// Package e2e holds Drover's black-box tests: each builds the drover
// binary (once), runs it as a real agent process on loopback ports and
// drives it only as a user would, over the HTTP API and through the CLI.
// They use real time, so their bounds are wide enough for a loaded
// two-core machine; speed is measured by the benchmarks in bench/.
//
// The tests are skipped with -short.
package e2e
