//go:build race

package rawexec

const raceEnabled = true
