package convert

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/structs"
)

// ACLPolicyToAPI is a policy as the API answers it.
func ACLPolicyToAPI(p *structs.ACLPolicy) *api.ACLPolicy {
	return &api.ACLPolicy{
		Name:        p.Name,
		Description: p.Description,
		Rules:       p.Rules,
		CreateIndex: p.CreateIndex,
		ModifyIndex: p.ModifyIndex,
	}
}

// ACLPolicyStub is a policy as the list of policies shows it.
func ACLPolicyStub(p *structs.ACLPolicy) *api.ACLPolicyListStub {
	return &api.ACLPolicyListStub{
		Name:        p.Name,
		Description: p.Description,
		CreateIndex: p.CreateIndex,
		ModifyIndex: p.ModifyIndex,
	}
}

// ACLTokenToAPI is a token with its secret: what its creator, its holder
// and management tokens read.
func ACLTokenToAPI(t *structs.ACLToken) *api.ACLToken {
	return &api.ACLToken{
		AccessorID:     t.AccessorID,
		SecretID:       t.SecretID,
		Name:           t.Name,
		Type:           t.Type,
		Policies:       nonNilStrings(t.Policies),
		Global:         t.Global,
		CreateTime:     t.CreateTime,
		ExpirationTime: t.ExpirationTime,
		ExpirationTTL:  t.ExpirationTTL,
		CreateIndex:    t.CreateIndex,
		ModifyIndex:    t.ModifyIndex,
	}
}

// ACLTokenStub is a token as lists show it, without its secret.
func ACLTokenStub(t *structs.ACLToken) *api.ACLTokenListStub {
	return &api.ACLTokenListStub{
		AccessorID:     t.AccessorID,
		Name:           t.Name,
		Type:           t.Type,
		Policies:       nonNilStrings(t.Policies),
		Global:         t.Global,
		CreateTime:     t.CreateTime,
		ExpirationTime: t.ExpirationTime,
		CreateIndex:    t.CreateIndex,
		ModifyIndex:    t.ModifyIndex,
	}
}

// ACLTokenFromAPI is a requested token; it refuses Nomad's ACL roles,
// which Drover does not have, with an error that names the field: the
// caller answers it as a bad request.
func ACLTokenFromAPI(in *api.ACLToken) (*structs.ACLToken, error) {
	if len(in.Roles) > 0 {
		return nil, errors.New("token field Roles is not supported: Drover has no ACL roles; name policies instead")
	}
	return &structs.ACLToken{
		AccessorID:     in.AccessorID,
		SecretID:       in.SecretID,
		Name:           in.Name,
		Type:           in.Type,
		Policies:       slices.Clone(in.Policies),
		Global:         in.Global,
		ExpirationTime: in.ExpirationTime,
		ExpirationTTL:  in.ExpirationTTL,
	}, nil
}

// NamespaceToAPI is a namespace as the API answers it.
func NamespaceToAPI(ns *structs.Namespace) *api.Namespace {
	out := &api.Namespace{
		Name:        ns.Name,
		Description: ns.Description,
		Meta:        ns.Meta,
		CreateIndex: ns.CreateIndex,
		ModifyIndex: ns.ModifyIndex,
	}
	out.TimeLimits = (*api.NamespaceTimeLimits)(clonePtr(ns.TimeLimits))
	if c := ns.Capabilities; c != nil {
		out.Capabilities = &api.NamespaceCapabilities{
			EnabledTaskDrivers:  c.EnabledTaskDrivers,
			DisabledTaskDrivers: c.DisabledTaskDrivers,
		}
	}
	return out
}

// NamespaceFromAPI is a namespace to write. What Drover cannot honour
// (quotas, network modes, node pool, Vault and Consul settings, workload
// identity claims) would change what may run, so it is refused, with an
// error that names the field: the caller answers it as a bad request.
func NamespaceFromAPI(in *api.Namespace) (*structs.Namespace, error) {
	unsupported := map[string]bool{
		"Quota":                 in.Quota != "",
		"NodePoolConfiguration": in.NodePoolConfiguration != nil,
		"VaultConfiguration":    len(in.VaultConfiguration) > 0,
		"ConsulConfiguration":   len(in.ConsulConfiguration) > 0,
		"RequiredExtraClaims":   len(in.RequiredExtraClaims) > 0,
		"OptionalExtraClaims":   len(in.OptionalExtraClaims) > 0,
	}
	if c := in.Capabilities; c != nil {
		unsupported["Capabilities.EnabledNetworkModes"] = len(c.EnabledNetworkModes) > 0
		unsupported["Capabilities.DisabledNetworkModes"] = len(c.DisabledNetworkModes) > 0
	}
	for _, field := range slices.Sorted(maps.Keys(unsupported)) {
		if unsupported[field] {
			return nil, fmt.Errorf("namespace %q: field %s is not supported by Drover", in.Name, field)
		}
	}
	ns := &structs.Namespace{Name: in.Name, Description: in.Description, Meta: in.Meta}
	if l := in.TimeLimits; l != nil && *l != (api.NamespaceTimeLimits{}) {
		ns.TimeLimits = (*structs.NamespaceTimeLimits)(clonePtr(l))
	}
	if c := in.Capabilities; c != nil && (len(c.EnabledTaskDrivers) > 0 || len(c.DisabledTaskDrivers) > 0) {
		ns.Capabilities = &structs.NamespaceCapabilities{
			EnabledTaskDrivers:  slices.Clone(c.EnabledTaskDrivers),
			DisabledTaskDrivers: slices.Clone(c.DisabledTaskDrivers),
		}
	}
	return ns, nil
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
