package api

import (
	"encoding/json"
	"fmt"
	"time"
)

// ACL token types.
const (
	ACLClientToken     = "client"
	ACLManagementToken = "management"
)

// ACLPolicy is a named set of rules in Nomad's policy language.
type ACLPolicy struct {
	Name        string
	Description string
	Rules       string
	// JobACL is part of Nomad's wire form (policies bound to workload
	// identities); Drover has none and refuses a policy that sets it.
	JobACL      *JobACL `json:",omitempty"`
	CreateIndex uint64
	ModifyIndex uint64
}

// JobACL binds a policy to a job's workload identity in Nomad.
type JobACL struct {
	Namespace string
	JobID     string
	Group     string
	Task      string
}

// ACLPolicyListStub is a policy as the list shows it.
type ACLPolicyListStub struct {
	Name        string
	Description string
	JobACL      *JobACL `json:",omitempty"`
	CreateIndex uint64
	ModifyIndex uint64
}

// ACLToken is a credential: the AccessorID names it, the SecretID is what
// requests send as X-Nomad-Token.
type ACLToken struct {
	AccessorID string
	SecretID   string
	Name       string
	Type       string
	Policies   []string
	// Roles is part of Nomad's wire form; Drover has no roles and refuses
	// a token that names one.
	Roles      []*ACLTokenRoleLink `json:",omitempty"`
	Global     bool
	CreateTime time.Time
	// ExpirationTime, when set, is when the token stops working.
	ExpirationTime *time.Time `json:",omitempty"`
	// ExpirationTTL sets ExpirationTime to CreateTime plus it, at creation.
	ExpirationTTL time.Duration `json:",omitempty"`
	CreateIndex   uint64
	ModifyIndex   uint64
}

// ACLTokenRoleLink names an ACL role in Nomad's wire form.
type ACLTokenRoleLink struct {
	ID   string
	Name string
}

// ACLTokenListStub is a token as the list shows it: without its secret.
type ACLTokenListStub struct {
	AccessorID     string
	Name           string
	Type           string
	Policies       []string
	Roles          []*ACLTokenRoleLink `json:",omitempty"`
	Global         bool
	CreateTime     time.Time
	ExpirationTime *time.Time `json:",omitempty"`
	CreateIndex    uint64
	ModifyIndex    uint64
}

// BootstrapRequest is the body of a bootstrap: the secret ID the
// management token is to have, or none for a random one.
type BootstrapRequest struct {
	BootstrapSecret string
}

// Namespace partitions jobs; policies grant capabilities per namespace.
type Namespace struct {
	Name         string
	Description  string
	Quota        string                 `json:",omitempty"`
	Capabilities *NamespaceCapabilities `json:",omitempty"`
	// TimeLimits is Drover's: bounds on the run time of the namespace's
	// jobs.
	TimeLimits *NamespaceTimeLimits `json:",omitempty"`
	// The rest of Nomad's namespace fields configure features Drover does
	// not have; a namespace that sets one is refused.
	NodePoolConfiguration *NamespaceNodePoolConfiguration `json:",omitempty"`
	VaultConfiguration    map[string]any                  `json:",omitempty"`
	ConsulConfiguration   map[string]any                  `json:",omitempty"`
	Meta                  map[string]string               `json:",omitempty"`
	RequiredExtraClaims   map[string]string               `json:",omitempty"`
	OptionalExtraClaims   map[string]string               `json:",omitempty"`
	CreateIndex           uint64
	ModifyIndex           uint64
}

// NamespaceCapabilities say which task drivers (and network modes, which
// Drover does not have) jobs of the namespace may use.
type NamespaceCapabilities struct {
	EnabledTaskDrivers   []string `json:",omitempty"`
	DisabledTaskDrivers  []string `json:",omitempty"`
	EnabledNetworkModes  []string `json:",omitempty"`
	DisabledNetworkModes []string `json:",omitempty"`
}

// NamespaceNodePoolConfiguration is Nomad's node pool setting of a
// namespace.
type NamespaceNodePoolConfiguration struct {
	Default string
	Allowed []string
	Denied  []string
}

// aclTokenJSON is ACLToken without its methods, for the JSON form.
type aclTokenJSON ACLToken

// MarshalJSON writes ExpirationTTL as a duration string ("8h0m0s"), left
// empty when zero, as Nomad's wire form has it.
func (t *ACLToken) MarshalJSON() ([]byte, error) {
	ttl := ""
	if t.ExpirationTTL != 0 {
		ttl = t.ExpirationTTL.String()
	}
	return json.Marshal(&struct {
		ExpirationTTL string `json:",omitempty"`
		*aclTokenJSON
	}{ttl, (*aclTokenJSON)(t)})
}

// UnmarshalJSON reads ExpirationTTL as a duration string or as a number
// of nanoseconds.
func (t *ACLToken) UnmarshalJSON(data []byte) error {
	aux := &struct {
		ExpirationTTL any
		*aclTokenJSON
	}{aclTokenJSON: (*aclTokenJSON)(t)}
	if err := json.Unmarshal(data, aux); err != nil {
		return err
	}
	switch v := aux.ExpirationTTL.(type) {
	case nil:
	case string:
		if v == "" {
			return nil
		}
		d, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("ExpirationTTL %q is not a duration: %w", v, err)
		}
		t.ExpirationTTL = d
	case float64:
		t.ExpirationTTL = time.Duration(v)
	default:
		return fmt.Errorf("ExpirationTTL must be a duration string or nanoseconds, not %T", v)
	}
	return nil
}

// NamespaceTimeLimits are Drover's bounds on the run time of a
// namespace's jobs (durations in nanoseconds; zero sets none): the
// max_run_duration of a batch or sysbatch group that gives none, the
// longest max_run_duration a job, group, task or dispatch may give, and
// how far past its group's budget `alloc deadline` may move an
// allocation's.
type NamespaceTimeLimits struct {
	MaxRunDurationDefault     time.Duration `json:",omitempty"`
	MaxRunDurationMax         time.Duration `json:",omitempty"`
	AllocDeadlineExtensionMax time.Duration `json:",omitempty"`
}
