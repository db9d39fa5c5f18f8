package auth

import "github.com/drover-io/drover/acl"

// Variable checks capability (acl.VariablesRead, ...) on the variable at
// path in namespace: by a policy's variables rules, or by a workload
// identity's implicit access to its own job's variables.
func Variable(a *acl.ACL, namespace, path, capability string) error {
	if !a.AllowVariableOperation(namespace, path, capability) {
		return Denied("this needs variables %s on path %q in namespace %q", capability, path, namespace)
	}
	return nil
}

// VariableList checks a list of variables: list on some path of
// namespace (of some namespace, for acl.AllNamespaces). The list then
// shows only the variables the caller may list.
func VariableList(a *acl.ACL, namespace string) error {
	if !a.AllowVariableSearch(namespace) {
		return Denied("listing variables needs variables list on some path in namespace %q", namespace)
	}
	return nil
}
