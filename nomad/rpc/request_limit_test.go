package rpc

import (
	"testing"

	"github.com/shoenig/test/must"
)

func TestJSONValueScanner(t *testing.T) {
	var s jsonValueScanner
	first := `{"a":"}]{[\"","b":[1,{"c":2}]}`
	must.Eq(t, int64(len(first)), s.Feed([]byte(first)), must.Sprint("a whole object ends its count"))
	must.Eq(t, int64(0), s.Current)
	must.Eq(t, int64(0), s.Feed([]byte("\n  {\"method\":\"x\",\"params\":[\"{{{{")))
	must.Eq(t, int64(29), s.Current, must.Sprint("whitespace between values counts for none"))
	must.True(t, s.InString)
	must.Eq(t, int64(32), s.Feed([]byte(`"]}`+"\n")))
	must.Eq(t, int64(0), s.Current)
}
