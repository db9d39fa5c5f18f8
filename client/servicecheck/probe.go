package servicecheck

import "context"

// Result is what one probe found.
type Result struct {
	Health Health
	// Output is what the probe says about it: the http response body or
	// error, the script's output; cut at maxOutput.
	Output string
	// StatusCode is an http check's response status (0 for others).
	StatusCode int
}

// maxOutput bounds the output a result keeps: what a task serves or
// prints is the job author's, and held until the next result.
const maxOutput = 4 << 10

// Prober runs one probe. ctx carries the check's timeout.
type Prober interface {
	Probe(ctx context.Context) Result
}

func cut(s string) string {
	if len(s) > maxOutput {
		return s[:maxOutput]
	}
	return s
}
