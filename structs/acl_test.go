package structs

import (
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

func validClientToken() *ACLToken {
	return &ACLToken{
		AccessorID: GenerateUUID(), SecretID: GenerateUUID(), Name: "dev",
		Type: ACLTokenTypeClient, Policies: []string{"readonly"}, CreateTime: time.Unix(100, 0),
	}
}

func TestACLToken_Validate(t *testing.T) {
	must.NoError(t, validClientToken().Validate())

	cases := map[string]struct {
		mutate func(*ACLToken)
		want   string
	}{
		"no secret":          {func(tk *ACLToken) { tk.SecretID = "" }, "no secret ID"},
		"unknown type":       {func(tk *ACLToken) { tk.Type = "root" }, `token type "root"`},
		"client no policies": {func(tk *ACLToken) { tk.Policies = nil }, "client token has no policies"},
		"management policies": {func(tk *ACLToken) { tk.Type = ACLTokenTypeManagement },
			"management token cannot have policies"},
		"bad policy name":  {func(tk *ACLToken) { tk.Policies = []string{"a b"} }, `token policy "a b"`},
		"long name":        {func(tk *ACLToken) { tk.Name = strings.Repeat("n", 300) }, "token name is longer"},
		"expires at birth": {func(tk *ACLToken) { e := tk.CreateTime; tk.ExpirationTime = &e }, "not after its create time"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tk := validClientToken()
			tc.mutate(tk)
			must.ErrorContains(t, tk.Validate(), tc.want)
		})
	}
}

func TestACLToken_StringHidesSecret(t *testing.T) {
	tk := validClientToken()
	must.StrNotContains(t, tk.String(), tk.SecretID)
	must.StrContains(t, tk.String(), tk.AccessorID)
}

func TestACLToken_IsExpired(t *testing.T) {
	tk := validClientToken()
	must.False(t, tk.IsExpired(time.Now()))
	exp := time.Unix(200, 0)
	tk.ExpirationTime = &exp
	must.False(t, tk.IsExpired(time.Unix(199, 0)))
	must.True(t, tk.IsExpired(time.Unix(200, 0)))
}

func TestACLPolicy_Validate(t *testing.T) {
	must.NoError(t, (&ACLPolicy{Name: "read-only"}).Validate())
	must.ErrorContains(t, (&ACLPolicy{Name: "a/b"}).Validate(), `invalid policy name "a/b"`)
	must.ErrorContains(t, (&ACLPolicy{Name: "ok", Description: strings.Repeat("d", 300)}).Validate(), "description is longer")
}

func TestNamespace_Validate(t *testing.T) {
	must.NoError(t, DefaultNamespaceObject().Validate())
	must.ErrorContains(t, (&Namespace{Name: "*"}).Validate(), `invalid name "*". A namespace name is 1 to 128 letters, digits and dashes`)
	both := &Namespace{Name: "x", Capabilities: &NamespaceCapabilities{
		EnabledTaskDrivers: []string{"docker"}, DisabledTaskDrivers: []string{"docker"},
	}}
	must.ErrorContains(t, both.Validate(), `"docker" is both enabled and disabled`)
}

func TestNamespace_AllowsDriver(t *testing.T) {
	must.True(t, (&Namespace{Name: "x"}).AllowsDriver("raw_exec"))
	deny := &Namespace{Name: "x", Capabilities: &NamespaceCapabilities{DisabledTaskDrivers: []string{"raw_exec"}}}
	must.False(t, deny.AllowsDriver("raw_exec"))
	must.True(t, deny.AllowsDriver("docker"))
	only := &Namespace{Name: "x", Capabilities: &NamespaceCapabilities{EnabledTaskDrivers: []string{"docker"}}}
	must.False(t, only.AllowsDriver("raw_exec"))
	must.True(t, only.AllowsDriver("docker"))
}

func TestJob_Drivers(t *testing.T) {
	job := &Job{TaskGroups: []*TaskGroup{
		{Tasks: []*Task{{Driver: "raw_exec"}, {Driver: "docker"}}},
		{Tasks: []*Task{{Driver: "raw_exec"}}},
	}}
	must.Eq(t, []string{"raw_exec", "docker"}, job.Drivers())
}
