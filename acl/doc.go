// Package acl is Drover's access control: Nomad's policy language and the
// capability checks made against it.
//
// Parse reads a policy's rules (HCL, or JSON) into a Policy, each rule's
// disposition ("read", "write", ...) expanded into the capabilities it
// stands for. New merges the policies of a token into an ACL, which
// answers the questions every endpoint asks: AllowNamespaceOperation,
// AllowNodeRead, AllowAgentWrite, and so on. Management returns the ACL
// of a management token, which allows everything; a nil *ACL allows
// nothing, so that a check that was never given an ACL fails closed.
//
// The package knows nothing of tokens, stores or requests: the server
// resolves a token to its policies and the agent checks each route.
package acl
