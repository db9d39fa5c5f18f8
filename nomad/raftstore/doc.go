// Package raftstore opens raft's log, stable and snapshot stores: bolt
// and files under the server's raft directory, with a small cache of the
// latest log entries in front of the on-disk log, or in-memory stores
// for a dev server.
//
// Starting raft, bootstrapping and joining stay with the server. The
// package must not import package nomad or any of its other subpackages.
package raftstore
