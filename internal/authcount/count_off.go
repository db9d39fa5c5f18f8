//go:build !drover_authcount

package authcount

// Enabled says whether this build counts.
const Enabled = false

// Add counts one permission check; this build does not count.
func Add() {}

// Total is the number of checks made; this build does not count.
func Total() uint64 { return 0 }
