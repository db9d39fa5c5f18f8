package rpc

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

func TestLatencySamples(t *testing.T) {
	var l LatencySamples
	must.Eq(t, LatencyStats{}, l.Stats())

	for _, ms := range []int{3, 1, 2} {
		l.Record(time.Duration(ms) * time.Millisecond)
	}
	st := l.Stats()
	must.Eq(t, 3, st.Count)
	must.Eq(t, 3*time.Millisecond, st.Max)
	must.Eq(t, 2*time.Millisecond, st.P50)
	must.LessEq(t, 16, cap(l.samples), must.Sprint("a few samples hold little memory"))
}

// Past the window, the oldest samples make way for new ones.
func TestLatencySamples_Window(t *testing.T) {
	var l LatencySamples
	l.Record(time.Hour) // the oldest; it leaves once the window is full
	for range latencyWindow {
		l.Record(time.Millisecond)
	}
	st := l.Stats()
	must.Eq(t, latencyWindow, st.Count)
	must.Eq(t, time.Millisecond, st.Max)
	l.Record(time.Second)
	must.Eq(t, time.Second, l.Stats().Max)
	must.Eq(t, latencyWindow, l.Stats().Count)
}
