package api

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

func TestACLToken_ExpirationTTLWireForm(t *testing.T) {
	data, err := json.Marshal(&ACLToken{Name: "t", ExpirationTTL: 90 * time.Minute})
	must.NoError(t, err)
	must.StrContains(t, string(data), `"ExpirationTTL":"1h30m0s"`)
	data, err = json.Marshal(&ACLToken{Name: "t"})
	must.NoError(t, err)
	must.StrNotContains(t, string(data), "ExpirationTTL")

	for in, want := range map[string]time.Duration{
		`{"ExpirationTTL":"8h"}`:       8 * time.Hour,
		`{"ExpirationTTL":1000000000}`: time.Second,
		`{"ExpirationTTL":""}`:         0,
		`{"Name":"no ttl"}`:            0,
	} {
		var tok ACLToken
		must.NoError(t, json.Unmarshal([]byte(in), &tok), must.Sprint(in))
		must.Eq(t, want, tok.ExpirationTTL, must.Sprint(in))
	}
	var tok ACLToken
	must.ErrorContains(t, json.Unmarshal([]byte(`{"ExpirationTTL":"soon"}`), &tok), `"soon" is not a duration`)
}
