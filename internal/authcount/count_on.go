//go:build drover_authcount

package authcount

import "sync/atomic"

// Enabled says whether this build counts.
const Enabled = true

var total atomic.Uint64

// Add counts one permission check.
func Add() { total.Add(1) }

// Total is the number of checks made since the process started.
func Total() uint64 { return total.Load() }
