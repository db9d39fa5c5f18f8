package structs

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shoenig/test/must"
)

// kib is a string of n KiB.
func kib(n int) string { return strings.Repeat("x", n<<10) }

// manyMeta is n meta entries of size bytes each, under lower-case keys
// (each becomes two variables).
func manyMeta(prefix string, n, size int) map[string]string {
	m := make(map[string]string, n)
	for i := range n {
		m[fmt.Sprintf("%s%02d", prefix, i)] = strings.Repeat("m", size)
	}
	return m
}

func TestValidate_execLimits(t *testing.T) {
	const where = `Task group "g" task "t": `
	cases := []struct {
		name   string
		mutate func(j *Job)
		want   []string // nil: valid
	}{
		{name: "env key with NUL", mutate: func(j *Job) { task(j).Env = map[string]string{"A\x00B": "v"} },
			want: []string{where + `env key "A\x00B" must not contain a NUL byte`}},
		{name: "env key with =", mutate: func(j *Job) { task(j).Env = map[string]string{"A=B": "v"} },
			want: []string{where + `env key "A=B" must not contain "="`}},
		{name: "empty env key", mutate: func(j *Job) { task(j).Env = map[string]string{"": "v"} },
			want: []string{where + `env key must not be empty`}},
		{name: "env value with NUL", mutate: func(j *Job) { task(j).Env = map[string]string{"A": "x\x00y"} },
			want: []string{where + `env "A" must not contain a NUL byte`}},
		{name: "argument with NUL", mutate: func(j *Job) {
			task(j).Config = map[string]any{"command": "/bin/echo", "args": []any{"ok", "a\x00b"}}
		}, want: []string{where + `config args #2 must not contain a NUL byte`}},
		{name: "meta value with NUL, on the job", mutate: func(j *Job) { j.Meta = map[string]string{"k": "a\x00"} },
			want: []string{`Job: meta "k" must not contain a NUL byte`}},
		{name: "meta value past MAX_ARG_STRLEN, on the group", mutate: func(j *Job) { group(j).Meta = map[string]string{"big": kib(128)} },
			want: []string{`Task group "g": meta "big" is 131088 bytes, more than the 131072 one argument or environment variable may take (Linux's MAX_ARG_STRLEN)`}},
		{name: "argument past MAX_ARG_STRLEN", mutate: func(j *Job) {
			task(j).Config = map[string]any{"command": "/bin/echo", "args": []any{kib(128)}}
		}, want: []string{where + `config args #1 is 131073 bytes, more than the 131072 one argument or environment variable may take (Linux's MAX_ARG_STRLEN)`}},
		{name: "argument at MAX_ARG_STRLEN", mutate: func(j *Job) {
			task(j).Config = map[string]any{"command": "/bin/echo", "args": []string{kib(128)[1:]}}
		}},
		{name: "env variable past MAX_ARG_STRLEN", mutate: func(j *Job) { task(j).Env = map[string]string{"BIG": kib(128)} },
			want: []string{where + `env "BIG" is 131077 bytes, more than the 131072 one argument or environment variable may take (Linux's MAX_ARG_STRLEN)`}},
		{name: "env past the total", mutate: func(j *Job) {
			task(j).Env = map[string]string{}
			for i := range 13 {
				task(j).Env[fmt.Sprintf("E%02d", i)] = kib(120)
			}
		}, want: []string{where + `arguments and environment take 1597627 bytes as execve counts them (each string, its NUL and its pointer), more than 1572864 (Linux's ARG_MAX of 2 MiB less 512 KiB for what the client adds); the largest: env "E00" (122893 bytes), env "E01" (122893 bytes), env "E02" (122893 bytes)`}},
		{name: "arguments and env just under the total", mutate: func(j *Job) {
			task(j).Config = map[string]any{"command": "/bin/echo", "args": []any{kib(120), kib(120), kib(120), kib(120), kib(120), kib(120)}}
			task(j).Env = map[string]string{}
			for i := range 6 {
				task(j).Env[fmt.Sprintf("E%02d", i)] = kib(120)
			}
		}},
		{name: "job meta counts twice, in every task", mutate: func(j *Job) {
			j.Meta = manyMeta("k", 7, 120<<10)
		}, want: []string{where + `arguments and environment take 1720674 bytes as execve counts them (each string, its NUL and its pointer), more than 1572864 (Linux's ARG_MAX of 2 MiB less 512 KiB for what the client adds); the largest: the job's meta (1720656 bytes), config command (18 bytes)`}},
		{name: "upper-case meta keys count once", mutate: func(j *Job) {
			j.Meta = map[string]string{}
			for i := range 7 {
				j.Meta[fmt.Sprintf("K%02d", i)] = kib(120)
			}
		}},
		{name: "task meta overriding the job's", mutate: func(j *Job) {
			j.Meta = manyMeta("k", 7, 120<<10)
			task(j).Meta = manyMeta("k", 7, 1)
		}},
		{name: "group meta overriding the job's, task meta adding", mutate: func(j *Job) {
			j.Meta = manyMeta("k", 7, 120<<10)
			group(j).Meta = manyMeta("k", 4, 1)
			task(j).Meta = manyMeta("t", 4, 120<<10)
		}, want: []string{where + `arguments and environment take 1720874 bytes as execve counts them (each string, its NUL and its pointer), more than 1572864 (Linux's ARG_MAX of 2 MiB less 512 KiB for what the client adds); the largest: the job's meta (737424 bytes), meta "t00" (122904 bytes), meta "t00" (upper-cased) (122904 bytes)`}},
		{name: "task meta overriding job meta the group leaves", mutate: func(j *Job) {
			j.Meta = manyMeta("k", 7, 120<<10)
			group(j).Meta = manyMeta("k", 3, 1)
			task(j).Meta = map[string]string{"k03": "", "k04": "", "k05": "", "k06": ""}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := validJob("batch")
			task(j).Config = map[string]any{"command": "/bin/true"}
			tc.mutate(j)
			mustProblems(t, tc.want, j.Validate())
		})
	}
}

func TestCheckExec(t *testing.T) {
	env := ExecEnv(map[string]string{"B": "2", "A": "1"})
	must.Eq(t, []ExecString{{Field: `env "A"`, Name: "A", Value: "1"}, {Field: `env "B"`, Name: "B", Value: "2"}}, env)
	args := ExecArgs(map[string]any{"command": "/bin/sh", "entrypoint": []string{"tini", "--"}, "args": []any{"-c", 7, "true"}, "image": "x"})
	must.Eq(t, []ExecString{
		{Field: "config command", Value: "/bin/sh"},
		{Field: "config entrypoint #1", Value: "tini"},
		{Field: "config entrypoint #2", Value: "--"},
		{Field: "config args #1", Value: "-c"},
		{Field: "config args #3", Value: "true"},
	}, args)

	strs := append(args, env...)
	// /bin/sh tini -- -c true: 8+5+3+3+5 = 24; A=1 B=2: 4+4 = 8; seven
	// pointers of 8.
	must.SliceEmpty(t, CheckExec(strs, 24+8+7*8, "the limit"))
	must.Eq(t, []string{`arguments and environment take 88 bytes as execve counts them (each string, its NUL and its pointer), more than 87 (the limit); the largest: config command (16 bytes), config entrypoint #1 (13 bytes), config args #3 (13 bytes)`},
		CheckExec(strs, 87, "the limit"))
}

// BenchmarkValidate_execLimitsSharedMeta validates a job whose large
// meta (2000 keys) every one of its 2000 tasks sees: the meta is summed
// once per level, so the cost grows with the job's size, not with keys
// times tasks.
func BenchmarkValidate_execLimitsSharedMeta(b *testing.B) {
	j := validJob("batch")
	j.Meta = manyMeta("key", 2000, 100)
	g := group(j)
	g.Tasks = nil
	for i := range 2000 {
		g.Tasks = append(g.Tasks, &Task{Name: fmt.Sprintf("t%d", i), Driver: "raw_exec", Config: map[string]any{"command": "/bin/true"}})
	}
	j.Canonicalize()
	if err := j.Validate(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = j.Validate()
	}
}
