package editdist

import (
	"testing"

	"github.com/shoenig/test/must"
)

func TestDistance(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"kitten", "sitting", 3},
		{"", "", 0},
		{"", "abc", 3},
		{"comand", "command", 1},
		{"statu", "status", 1},
		{"abc", "abc", 0},
	}
	for _, c := range cases {
		must.Eq(t, c.want, Distance(c.a, c.b), must.Sprintf("%q %q", c.a, c.b))
		must.Eq(t, c.want, Distance(c.b, c.a), must.Sprintf("%q %q reversed", c.b, c.a))
	}
}
