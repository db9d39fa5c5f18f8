package main

import "testing"

func TestSupervisorInvocation(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		stateDir string
		ok       bool
	}{
		{[]string{"task-supervisor", "/var/lib/drover/alloc/a/web"}, "/var/lib/drover/alloc/a/web", true},
		{[]string{"task-supervisor"}, "", false},
		{[]string{"task-supervisor", "-h"}, "", false},
		{[]string{"task-supervisor", ""}, "", false},
		{[]string{"task-supervisor", "a", "b"}, "", false},
		{[]string{"agent", "-dev"}, "", false},
		{nil, "", false},
	} {
		stateDir, ok := supervisorInvocation(tc.args)
		if stateDir != tc.stateDir || ok != tc.ok {
			t.Errorf("supervisorInvocation(%q) = %q, %v; want %q, %v", tc.args, stateDir, ok, tc.stateDir, tc.ok)
		}
	}
}
