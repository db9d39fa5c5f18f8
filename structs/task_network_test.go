package structs

import (
	"testing"

	"github.com/shoenig/test/must"
)

func TestCanonicalize_mergesTaskNetworks(t *testing.T) {
	t.Run("into a new host network", func(t *testing.T) {
		j := validJob("service")
		task(j).Networks = []*NetworkResource{{
			MBits:         new(10),
			ReservedPorts: []Port{{Label: "proxy", Value: 80}},
			DynamicPorts:  []Port{{Label: "admin"}},
		}}
		j.Canonicalize()
		must.Nil(t, task(j).Networks)
		must.Eq(t, []*NetworkResource{{
			Mode:          NetworkModeHost,
			MBits:         new(10),
			ReservedPorts: []Port{{Label: "proxy", Value: 80}},
			DynamicPorts:  []Port{{Label: "admin"}},
		}}, group(j).Networks)
		must.NoError(t, j.Validate())
	})
	t.Run("into the group's, with two tasks", func(t *testing.T) {
		j := validJob("service")
		group(j).Networks = []*NetworkResource{{MBits: new(5), DynamicPorts: []Port{{Label: "http", To: 8080}}}}
		task(j).Networks = []*NetworkResource{{Mode: "host", ReservedPorts: []Port{{Label: "a", Value: 81}}}}
		addTask(j, "u").Networks = []*NetworkResource{{MBits: new(1), DynamicPorts: []Port{{Label: "b"}}}}
		j.Canonicalize()
		must.Nil(t, task(j).Networks)
		must.Nil(t, group(j).Tasks[1].Networks)
		must.Eq(t, []*NetworkResource{{
			MBits:         new(6),
			ReservedPorts: []Port{{Label: "a", Value: 81}},
			DynamicPorts:  []Port{{Label: "http", To: 8080}, {Label: "b"}},
		}}, group(j).Networks)
		must.NoError(t, j.Validate())
		// Idempotent: a second pass changes nothing.
		before := j.Copy()
		j.Canonicalize()
		must.Eq(t, before, j)
	})
	t.Run("ports then held to the group's rules", func(t *testing.T) {
		j := validJob("service")
		group(j).Networks = []*NetworkResource{{ReservedPorts: []Port{{Label: "http", Value: 80}}}}
		task(j).Networks = []*NetworkResource{{ReservedPorts: []Port{{Label: "proxy", Value: 80}}}}
		j.Canonicalize()
		mustProblems(t, []string{`Task group "g": network ports "http" and "proxy" both ask for static port 80`}, j.Validate())
	})
}

func TestValidate_taskNetworks(t *testing.T) {
	const at = `Task group "g" task "t": resources: `
	cases := []struct {
		name  string
		group []*NetworkResource
		task  []*NetworkResource
		other []*NetworkResource
		want  []string
	}{
		{name: "label in the group's network too",
			group: []*NetworkResource{{DynamicPorts: []Port{{Label: "http"}}}},
			task:  []*NetworkResource{{ReservedPorts: []Port{{Label: "http", Value: 80}}}},
			want:  []string{at + `network port "http" is both in the task's network block and in the group's: give it in one of them`}},
		{name: "label in another task's network",
			task:  []*NetworkResource{{DynamicPorts: []Port{{Label: "http"}}}},
			other: []*NetworkResource{{DynamicPorts: []Port{{Label: "http"}}}},
			want: []string{
				at + `network port "http" is also in task "u"'s network block: the ports of a group's tasks share one network, give each label once`,
				`Task group "g" task "u": resources: network port "http" is also in task "t"'s network block: the ports of a group's tasks share one network, give each label once`,
			}},
		{name: "bridge mode",
			task: []*NetworkResource{{Mode: "bridge", DynamicPorts: []Port{{Label: "http"}}}},
			want: []string{at + `a task's network block places its ports on the host's network: mode must be "host", got "bridge"; for another mode use the group's network block`}},
		{name: "group in bridge mode",
			group: []*NetworkResource{{Mode: "bridge"}},
			task:  []*NetworkResource{{DynamicPorts: []Port{{Label: "http"}}}},
			want:  []string{at + `the task's network block asks for host ports, but the group's network block has mode "bridge": move the task's ports into the group's network block`}},
		{name: "dns",
			task: []*NetworkResource{{DNS: &DNSConfig{Servers: []string{"1.1.1.1"}}}},
			want: []string{at + `a task's network block may hold only mbits and port blocks; give device, cidr, ip, hostname and dns in the group's network block`}},
		{name: "two blocks",
			task: []*NetworkResource{{}, {}},
			want: []string{at + `only one network block is allowed in a task, got 2`}},
		{name: "null block",
			task: []*NetworkResource{nil},
			want: []string{at + `network block must not be null`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := validJob("service")
			group(j).Networks = tc.group
			task(j).Networks = tc.task
			if tc.other != nil {
				addTask(j, "u").Networks = tc.other
			}
			j.Canonicalize()
			// Refused networks stay where they were written.
			must.Eq(t, tc.task, task(j).Networks)
			mustProblems(t, tc.want, j.Validate())
		})
	}
}
