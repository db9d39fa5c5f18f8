package structs

import (
	"errors"
	"fmt"
	"regexp"
	"sync"
	"time"
)

// ACL token types.
const (
	ACLTokenTypeClient     = "client"
	ACLTokenTypeManagement = "management"
)

// AnonymousPolicyName is the policy that applies to requests without a
// token. There is none until an operator writes one.
const AnonymousPolicyName = "anonymous"

// Bounds of ACL objects.
const (
	maxACLNameLength        = 128
	maxACLDescriptionLength = 256
	maxACLTokenNameLength   = 256
	maxACLTokenPolicies     = 64
)

// validACLPolicyName is what a policy name may be, as in Nomad. It is
// compiled on first use, not by every process of the binary at start-up.
var validACLPolicyName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9-]{1,128}$`) })

// ACLPolicy is a named set of rules in Nomad's policy language (package
// acl parses them).
type ACLPolicy struct {
	Name        string
	Description string
	Rules       string
	CreateIndex uint64
	ModifyIndex uint64
}

// Validate checks the policy's name and description; the rules are the
// acl package's to check.
func (p *ACLPolicy) Validate() error {
	var errs []error
	if !validACLPolicyName().MatchString(p.Name) {
		errs = append(errs, fmt.Errorf("invalid policy name %q: 1 to %d letters, digits and dashes", p.Name, maxACLNameLength))
	}
	if len(p.Description) > maxACLDescriptionLength {
		errs = append(errs, fmt.Errorf("policy %q: description is longer than %d bytes", p.Name, maxACLDescriptionLength))
	}
	return errors.Join(errs...)
}

// ACLToken is a credential. The AccessorID names it in lists and logs;
// the SecretID is what a caller sends, and is never logged.
type ACLToken struct {
	AccessorID string
	SecretID   string
	Name       string
	// Type is ACLTokenTypeClient, whose rights are its Policies, or
	// ACLTokenTypeManagement, which may do everything.
	Type     string
	Policies []string
	// Global is kept for Nomad's API; a Drover cluster is one region, so
	// every token is valid everywhere it can be used.
	Global     bool
	CreateTime time.Time
	// ExpirationTime, when set, is when the token stops being valid.
	ExpirationTime *time.Time `json:",omitempty"`
	// ExpirationTTL is what ExpirationTime was derived from at creation.
	ExpirationTTL time.Duration `json:",omitempty"`
	CreateIndex   uint64
	ModifyIndex   uint64
}

// String names a token without its secret, so that a token that ends up in
// a log line gives nothing away.
func (t *ACLToken) String() string {
	if t == nil {
		return "<no token>"
	}
	return fmt.Sprintf("ACL token %s (%s %q)", t.AccessorID, t.Type, t.Name)
}

// IsManagement reports whether the token may do everything.
func (t *ACLToken) IsManagement() bool { return t.Type == ACLTokenTypeManagement }

// IsExpired reports whether the token is past its expiration at now.
func (t *ACLToken) IsExpired(now time.Time) bool {
	return t.ExpirationTime != nil && !now.Before(*t.ExpirationTime)
}

// Validate checks what a stored token must have: its IDs, a known type,
// policies for a client token and none for a management token.
func (t *ACLToken) Validate() error {
	var errs []error
	if t.AccessorID == "" || t.SecretID == "" {
		errs = append(errs, errors.New("token has no accessor ID or no secret ID"))
	}
	if len(t.Name) > maxACLTokenNameLength {
		errs = append(errs, fmt.Errorf("token name is longer than %d bytes", maxACLTokenNameLength))
	}
	switch t.Type {
	case ACLTokenTypeClient:
		if len(t.Policies) == 0 {
			errs = append(errs, errors.New("client token has no policies"))
		}
	case ACLTokenTypeManagement:
		if len(t.Policies) != 0 {
			errs = append(errs, errors.New("management token cannot have policies: it may do everything already"))
		}
	default:
		errs = append(errs, fmt.Errorf("token type %q is not %q or %q", t.Type, ACLTokenTypeClient, ACLTokenTypeManagement))
	}
	if len(t.Policies) > maxACLTokenPolicies {
		errs = append(errs, fmt.Errorf("token has %d policies; the limit is %d", len(t.Policies), maxACLTokenPolicies))
	}
	for _, name := range t.Policies {
		if !validACLPolicyName().MatchString(name) {
			errs = append(errs, fmt.Errorf("token policy %q is not a valid policy name", name))
		}
	}
	if t.ExpirationTime != nil && !t.ExpirationTime.After(t.CreateTime) {
		errs = append(errs, errors.New("token expiration time is not after its create time"))
	}
	return errors.Join(errs...)
}
