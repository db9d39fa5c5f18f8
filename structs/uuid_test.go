package structs

import (
	"regexp"
	"testing"

	"github.com/shoenig/test/must"
)

func TestGenerateUUID(t *testing.T) {
	form := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := map[string]bool{}
	for range 1000 {
		id := GenerateUUID()
		must.RegexMatch(t, form, id)
		must.False(t, seen[id], must.Sprintf("duplicate %s", id))
		seen[id] = true
	}
}

func TestShortID(t *testing.T) {
	cases := map[string]string{
		"6e4a1b2c-1111-4222-8333-444455556666": "6e4a1b2c",
		"abcdefgh":                             "abcdefgh",
		"abc":                                  "abc",
		"":                                     "",
	}
	for in, want := range cases {
		must.Eq(t, want, ShortID(in), must.Sprint(in))
	}
}
