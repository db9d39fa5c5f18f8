package acl

import "strings"

// Variables: a namespace rule's variables block grants capabilities on
// the variables at the paths its path rules match. The namespace rule
// that applies to a namespace is chosen as for every namespace check;
// within it, a path takes its own rule, else the closest pattern that
// matches it. A namespace rule that denies denies its variables too.

// addVariables adds the path rules of the namespace rule named ns.
func (a *ACL) addVariables(ns string, rules []*Rule) {
	if len(rules) == 0 {
		return
	}
	if a.variables == nil {
		a.variables = map[string]*ruleSet{}
	}
	rs := a.variables[ns]
	if rs == nil {
		rs = &ruleSet{}
		a.variables[ns] = rs
	}
	for _, r := range rules {
		rs.add(r.Name, r.Capabilities)
	}
}

// AllowVariableOperation reports whether capability (VariablesRead, ...)
// is granted on the variable at path in namespace: by a policy, or, for
// a workload identity, by its implicit access to its own job's
// variables.
func (a *ACL) AllowVariableOperation(namespace, path, capability string) bool {
	switch {
	case a == nil:
		return false
	case a.management:
		return true
	case a.workload != nil:
		return a.workload.allowsVariable(namespace, path, capability)
	}
	rs := a.namespaceVariables(namespace)
	return rs != nil && rs.match(path).allows(capability)
}

// AllowVariableSearch reports whether a may list some variable in
// namespace (AllNamespaces: in some namespace): what a list of variables
// needs before it is filtered variable by variable.
func (a *ACL) AllowVariableSearch(namespace string) bool {
	switch {
	case a == nil:
		return false
	case a.management:
		return true
	case a.workload != nil:
		return namespace == AllNamespaces || namespace == a.workload.Namespace
	case namespace == AllNamespaces:
		for _, rs := range a.variables {
			if rs.anyGrants(VariablesList) {
				return true
			}
		}
		return false
	}
	rs := a.namespaceVariables(namespace)
	return rs != nil && rs.anyGrants(VariablesList)
}

// namespaceVariables is the variables rules of the namespace rule that
// applies to namespace; nil when none applies or it denies.
func (a *ACL) namespaceVariables(namespace string) *ruleSet {
	name, caps := a.namespaces.matchRule(namespace)
	if name == "" || caps.denies() {
		return nil
	}
	return a.variables[name]
}

// allowsVariable is a workload's implicit access: reading and listing
// the variables at nomad/jobs, and at its job's, group's and task's own
// paths below it, in its namespace.
func (w *Workload) allowsVariable(namespace, path, capability string) bool {
	if namespace != w.Namespace || (capability != VariablesRead && capability != VariablesList) {
		return false
	}
	for _, own := range w.VariablePaths() {
		if path == own {
			return true
		}
	}
	return false
}

// VariablePaths are the variable paths a workload may read implicitly,
// from the widest to its own task's. A child job's are its parent's.
func (w *Workload) VariablePaths() []string {
	paths := []string{"nomad/jobs"}
	job := w.JobID
	if w.ParentJobID != "" {
		job = w.ParentJobID
	}
	for _, part := range []string{job, w.TaskGroup, w.Task} {
		if part == "" || strings.Contains(part, "/") {
			break
		}
		paths = append(paths, paths[len(paths)-1]+"/"+part)
	}
	return paths
}
