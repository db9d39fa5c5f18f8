package taskconfig

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

func TestMap_CheckKeys(t *testing.T) {
	m := Map{"command": "x", "bogus": 1, "also": 2}
	err := m.CheckKeys("command", "args")
	must.ErrorContains(t, err, `"also", "bogus"`)
	must.NoError(t, Map{"command": "x"}.CheckKeys("command", "args"))
}

func TestMap_String(t *testing.T) {
	m := Map{"s": "hi", "n": 3}
	s, err := m.String("s")
	must.NoError(t, err)
	must.Eq(t, "hi", s)
	s, err = m.String("absent")
	must.NoError(t, err)
	must.Eq(t, "", s)
	_, err = m.String("n")
	must.ErrorContains(t, err, `config key "n": want a string, got int`)
}

func TestMap_Int(t *testing.T) {
	cases := []struct {
		name    string
		value   any
		want    int
		wantErr string
	}{
		{name: "int", value: 3, want: 3},
		{name: "int64", value: int64(-4), want: -4},
		{name: "float64", value: float64(7), want: 7},
		{name: "json number", value: json.Number("12"), want: 12},
		{name: "fraction", value: 1.5, wantErr: "want an integer"},
		{name: "string", value: "3", wantErr: "want an integer"},
		{name: "absent", value: nil, want: 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Map{"k": tc.value}.Int("k")
			if tc.wantErr != "" {
				must.ErrorContains(t, err, tc.wantErr)
				must.ErrorContains(t, err, `"k"`)
				return
			}
			must.NoError(t, err)
			must.Eq(t, tc.want, got)
		})
	}
}

func TestMap_Bool(t *testing.T) {
	b, err := Map{"k": true}.Bool("k")
	must.NoError(t, err)
	must.True(t, b)
	b, err = Map{"k": "false"}.Bool("k")
	must.NoError(t, err)
	must.False(t, b)
	_, err = Map{"k": "yes"}.Bool("k")
	must.ErrorContains(t, err, "want a boolean")
}

func TestMap_Duration(t *testing.T) {
	cases := []struct {
		name    string
		value   any
		want    time.Duration
		wantErr string
	}{
		{name: "string", value: "1.5s", want: 1500 * time.Millisecond},
		{name: "nanoseconds", value: 2000, want: 2000},
		{name: "float nanoseconds", value: float64(1e9), want: time.Second},
		{name: "bad string", value: "soon", wantErr: `config key "k": time: invalid duration`},
		{name: "negative", value: "-1s", wantErr: "must not be negative"},
		{name: "bool", value: true, wantErr: "want a duration string"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Map{"k": tc.value}.Duration("k")
			if tc.wantErr != "" {
				must.ErrorContains(t, err, tc.wantErr)
				return
			}
			must.NoError(t, err)
			must.Eq(t, tc.want, got)
		})
	}
}

func TestMap_StringList(t *testing.T) {
	l, err := Map{"k": []string{"a", "b"}}.StringList("k")
	must.NoError(t, err)
	must.Eq(t, []string{"a", "b"}, l)
	l, err = Map{"k": []any{"a", "b"}}.StringList("k")
	must.NoError(t, err)
	must.Eq(t, []string{"a", "b"}, l)
	_, err = Map{"k": []any{"a", 2}}.StringList("k")
	must.ErrorContains(t, err, `config key "k": element 1: want a string, got int`)
	_, err = Map{"k": "a b"}.StringList("k")
	must.ErrorContains(t, err, "want a list of strings")
	l, err = Map{}.StringList("k")
	must.NoError(t, err)
	must.Nil(t, l)
}
