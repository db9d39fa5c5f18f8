package structs

import (
	"fmt"
	"slices"
	"time"
)

// WorkloadIdentityDefaultAudience is the audience of the default workload
// identity unless its block names others, as in Nomad. The HTTP API takes
// a workload identity as a token only if it has this audience.
const WorkloadIdentityDefaultAudience = "nomad.io"

// WorkloadIdentityDefaultName names the default identity, the one the
// HTTP API accepts.
const WorkloadIdentityDefaultName = "default"

// Bounds of an identity block.
const (
	maxIdentityAudiences   = 16
	maxIdentityAudienceLen = 256
)

// WorkloadIdentity is a task's identity block: how the client hands the
// task the token the servers sign for it. Drover supports the default
// identity only.
type WorkloadIdentity struct {
	// Name is empty or WorkloadIdentityDefaultName.
	Name string `json:",omitempty"`
	// Audience is the token's "aud"; empty means
	// WorkloadIdentityDefaultAudience.
	Audience []string `json:",omitempty"`
	// Env puts the token in the task's environment as NOMAD_TOKEN.
	Env bool `json:",omitempty"`
	// File writes the token to secrets/nomad_token in the task's
	// directory.
	File bool `json:",omitempty"`
	// TTL is how long a token is valid from its signing; zero means it
	// does not expire (no "exp" claim), as in Nomad.
	TTL time.Duration `json:",omitempty"`
}

// Exposed reports whether the task gets a token at all: through its
// environment or a file.
func (w *WorkloadIdentity) Exposed() bool { return w != nil && (w.Env || w.File) }

// Audiences returns the token's audience.
func (w *WorkloadIdentity) Audiences() []string {
	if w == nil || len(w.Audience) == 0 {
		return []string{WorkloadIdentityDefaultAudience}
	}
	return slices.Clone(w.Audience)
}

// validate checks the block of the task at where.
func (w *WorkloadIdentity) validate(p *problems, where string) {
	if w == nil {
		return
	}
	if w.Name != "" && w.Name != WorkloadIdentityDefaultName {
		p.add(where, "identity: Drover signs the default identity only (no name, or %q), not %q", WorkloadIdentityDefaultName, w.Name)
	}
	if w.TTL < 0 {
		p.add(where, "identity: ttl must not be negative, got %s", w.TTL)
	}
	if len(w.Audience) > maxIdentityAudiences {
		p.add(where, "identity: %d audiences; the limit is %d", len(w.Audience), maxIdentityAudiences)
	}
	for i, aud := range w.Audience {
		if aud == "" || len(aud) > maxIdentityAudienceLen {
			p.add(where, "identity: aud[%d] must be 1 to %d bytes", i, maxIdentityAudienceLen)
		}
	}
}

// Copy returns a deep copy of the block.
func (w *WorkloadIdentity) Copy() *WorkloadIdentity {
	if w == nil {
		return nil
	}
	c := *w
	c.Audience = slices.Clone(w.Audience)
	return &c
}

// IdentityClaims are the claims of a workload identity token, with
// Nomad's names.
type IdentityClaims struct {
	Namespace    string `json:"nomad_namespace"`
	JobID        string `json:"nomad_job_id"`
	AllocationID string `json:"nomad_allocation_id"`
	Task         string `json:"nomad_task"`

	Subject  string   `json:"sub"`
	Audience []string `json:"aud"`
	ID       string   `json:"jti"`
	// IssuedAt, NotBefore and Expiry are Unix seconds (NumericDate);
	// Expiry is 0 for a token that does not expire.
	IssuedAt  int64 `json:"iat"`
	NotBefore int64 `json:"nbf"`
	Expiry    int64 `json:"exp,omitempty"`
}

// NewIdentityClaims returns the claims of the default identity of task in
// alloc, signed at now.
func NewIdentityClaims(alloc *Allocation, task string, w *WorkloadIdentity, region string, now time.Time) *IdentityClaims {
	c := &IdentityClaims{
		Namespace:    alloc.Namespace,
		JobID:        alloc.JobID,
		AllocationID: alloc.ID,
		Task:         task,
		// As Nomad's: region:namespace:job:group:task:identity.
		Subject:   fmt.Sprintf("%s:%s:%s:%s:%s:%s", region, alloc.Namespace, alloc.JobID, alloc.TaskGroup, task, WorkloadIdentityDefaultName),
		Audience:  w.Audiences(),
		ID:        GenerateUUID(),
		IssuedAt:  now.Unix(),
		NotBefore: now.Unix(),
	}
	if w != nil && w.TTL > 0 {
		c.Expiry = now.Add(w.TTL).Unix()
	}
	return c
}

// HasAudience reports whether aud is one of the token's audiences.
func (c *IdentityClaims) HasAudience(aud string) bool { return slices.Contains(c.Audience, aud) }
