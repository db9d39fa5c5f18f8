// Package planeval checks a scheduler's plan against the state it will
// be committed on: a snapshot of the store plus the allocations of the
// plan still being committed. It keeps each node whose part still fits
// and is still eligible, and refuses the others, or the whole plan when
// it is all-at-once.
//
// It is pure: it reads what it is given and writes nothing. It must not
// import package nomad or any of its other subpackages but the state
// store.
package planeval
