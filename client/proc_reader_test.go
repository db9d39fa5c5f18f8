package client

import (
	"testing"

	"github.com/shoenig/test/must"
)

func TestParseProcStat(t *testing.T) {
	// A command name with spaces and a parenthesis, as a process may set.
	line := "4242 (my (odd) cmd) S 1 4240 4240 0 -1 4194560 100 0 0 0 " +
		"17 5 0 0 20 0 1 0 987654 1000000 200 18446744073709551615\n"
	st, err := parseProcStat(4242, []byte(line))
	must.NoError(t, err)
	must.Eq(t, procStat{pgid: 4240, utime: 17, stime: 5, startTime: 987654}, st)

	_, err = parseProcStat(1, []byte("1 (init S 1"))
	must.ErrorContains(t, err, "malformed stat")
	_, err = parseProcStat(1, []byte("1 (init) S 1 1"))
	must.ErrorContains(t, err, "short stat")
}

func TestParseUint(t *testing.T) {
	n, err := parseUint([]byte(" 1234\n"))
	must.NoError(t, err)
	must.Eq(t, uint64(1234), n)
	_, err = parseUint([]byte("12a"))
	must.Error(t, err)
	_, err = parseUint(nil)
	must.Error(t, err)
}
