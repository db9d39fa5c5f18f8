package servicecheck

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

func TestRestartCounter(t *testing.T) {
	start := time.Unix(1000, 0)
	at := func(s int) time.Time { return start.Add(time.Duration(s) * time.Second) }

	must.Nil(t, newRestartCounter(nil, start))
	must.Nil(t, newRestartCounter(&structs.CheckRestart{Limit: 0, Grace: time.Second}, start), must.Sprint("limit 0 never restarts"))

	t.Run("grace, then limit in a row", func(t *testing.T) {
		c := newRestartCounter(&structs.CheckRestart{Limit: 2, Grace: 10 * time.Second}, start)
		must.False(t, c.observe(Critical, at(1)))
		must.False(t, c.observe(Critical, at(9)), must.Sprint("within grace"))
		must.False(t, c.observe(Critical, at(10)))
		must.False(t, c.observe(Passing, at(11)), must.Sprint("a healthy result starts the count again"))
		must.False(t, c.observe(Critical, at(12)))
		must.True(t, c.observe(Critical, at(13)))
		must.False(t, c.observe(Critical, at(14)), must.Sprint("once per run"))
	})
	t.Run("warnings", func(t *testing.T) {
		c := newRestartCounter(&structs.CheckRestart{Limit: 1}, start)
		must.True(t, c.observe(Warning, at(1)))
		c = newRestartCounter(&structs.CheckRestart{Limit: 1, IgnoreWarnings: true}, start)
		must.False(t, c.observe(Warning, at(1)))
		must.False(t, c.observe(Pending, at(2)))
		must.True(t, c.observe(Critical, at(3)))
	})
}
