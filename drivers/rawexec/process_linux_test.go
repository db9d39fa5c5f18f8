package rawexec

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/shoenig/test/must"
	"golang.org/x/sys/unix"
)

// lowerPriorityTestEnv makes the test binary call lowerPriority and print
// the nice value of each of its threads (see TestLowerPriority).
const lowerPriorityTestEnv = "DROVER_TEST_LOWER_PRIORITY"

func init() {
	if os.Getenv(lowerPriorityTestEnv) == "1" {
		os.Exit(printNiceAfterLowering())
	}
}

const sampleSmaps = `00400000-00750000 r-xp 00000000 fe:00 9982355    /usr/bin/drover
Size:               3392 kB
Rss:                3148 kB
Anonymous:             0 kB
VmFlags: rd ex mr mw me dw sd
00750000-00ad5000 r--p 00350000 fe:00 9982355    /usr/bin/drover
Size:               3604 kB
Anonymous:             0 kB
00ad5000-00b4a000 rw-p 006d5000 fe:00 9982355    /usr/bin/drover
Anonymous:            60 kB
7f0000000000-7f0000010000 r--p 00000000 fe:00 42    /usr/lib/libc.so.6
Anonymous:             8 kB
7f3435202000-7f34352b2000 rw-p 00000000 00:00 0
Anonymous:           564 kB
7f343552a000-7f343552c000 r-xp 00000000 00:00 0                          [vdso]
Anonymous:             0 kB
7f3400000000-7f3400001000 r--s 00000000 fe:00 12    /dev/shm/x
Anonymous:             0 kB
`

func TestReleasableMappings(t *testing.T) {
	got, err := releasableMappings(strings.NewReader(sampleSmaps))
	must.NoError(t, err)
	must.Eq(t, []addressRange{
		{0x400000, 0x750000}, // text
		{0x750000, 0xad5000}, // read-only data
		// Not the writable data, not libc's relocated read-only pages, not
		// anonymous, special or shared mappings.
	}, got)
}

// The parse runs after the supervisor handed its free memory back: it may
// not allocate per line, or a real smaps file (thousands of lines) would
// leave its garbage on fresh pages.
func TestReleasableMappings_allocatesNothingPerLine(t *testing.T) {
	anonymous := "7f3435202000-7f34352b2000 rw-p 00000000 00:00 0\nRss:                 564 kB\nAnonymous:           564 kB\nVmFlags: rd wr mr mw me ac sd\n"
	large := sampleSmaps + strings.Repeat(anonymous, 500)
	var r strings.Reader
	allocs := testing.AllocsPerRun(10, func() {
		r.Reset(large)
		if _, err := releasableMappings(&r); err != nil {
			t.Fatal(err)
		}
	})
	// The scanner, its buffer and the result: not one per line.
	must.LessEq(t, 6, allocs)
}

func TestParseMapsHeader(t *testing.T) {
	for _, tc := range []struct {
		line         string
		start, end   uintptr
		isHeader, ok bool
	}{
		{"00400000-00750000 r-xp 00000000 fe:00 9982355    /usr/bin/drover", 0x400000, 0x750000, true, true},
		{"7f3435202000-7f34352b2000 rw-p 00000000 00:00 0", 0x7f3435202000, 0x7f34352b2000, true, false},
		{"7f343552a000-7f343552c000 r-xp 00000000 00:00 0                          [vdso]", 0x7f343552a000, 0x7f343552c000, true, false},
		{"7f3400000000-7f3400001000 r--s 00000000 fe:00 12    /dev/shm/x", 0x7f3400000000, 0x7f3400001000, true, false},
		{"Anonymous:             0 kB", 0, 0, false, false},
		{"VmFlags: rd ex mr mw me dw sd", 0, 0, false, false},
		{"00750000-00400000 r--p 00000000 fe:00 1 /x", 0, 0, false, false}, // end before start
		{"0040000g-00750000 r--p 00000000 fe:00 1 /x", 0, 0, false, false}, // not hex
		{"00400000 r--p 00000000 fe:00 1 /x", 0, 0, false, false},          // no range
		{"", 0, 0, false, false},
	} {
		start, end, isHeader, ok := parseMapsHeader([]byte(tc.line))
		if start != tc.start || end != tc.end || isHeader != tc.isHeader || ok != tc.ok {
			t.Errorf("parseMapsHeader(%q) = %#x, %#x, %v, %v; want %#x, %#x, %v, %v",
				tc.line, start, end, isHeader, ok, tc.start, tc.end, tc.isHeader, tc.ok)
		}
	}
}

// Releasing the mappings must leave the process working: its code and
// read-only data fault back in from the page cache.
func TestReleaseReadOnlyMappings(t *testing.T) {
	f, err := os.Open("/proc/self/smaps")
	must.NoError(t, err)
	defer f.Close()
	ranges, err := releasableMappings(f)
	must.NoError(t, err)
	must.SliceNotEmpty(t, ranges)
	releaseReadOnlyMappings()
	must.Eq(t, `"works"`, strconv.Quote("works"))
}

// printNiceAfterLowering is the child side of TestLowerPriority: it
// prints its autogroup line, then the nice value of each thread.
func printNiceAfterLowering() int {
	lowerPriority()
	autogroup, err := os.ReadFile("/proc/self/autogroup")
	if err != nil {
		autogroup = []byte("none")
	}
	fmt.Println(strings.TrimSpace(string(autogroup)))
	entries, err := os.ReadDir("/proc/self/task")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for _, e := range entries {
		b, err := os.ReadFile("/proc/self/task/" + e.Name() + "/stat")
		if err != nil {
			continue // the thread ended meanwhile
		}
		// Field 19, nice, counting from the state after the command.
		fields := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
		fmt.Println(fields[16])
	}
	return 0
}

// A supervisor whose task runs makes all its threads and its session's
// autogroup nicer. The child runs in a session of its own, as a supervisor
// does, so that the test's own session keeps its priority.
func TestLowerPriority(t *testing.T) {
	exe, err := os.Executable()
	must.NoError(t, err)
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), lowerPriorityTestEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	out, err := cmd.Output()
	must.NoError(t, err)

	own, err := unix.Getpriority(unix.PRIO_PROCESS, 0)
	must.NoError(t, err)
	want := strconv.Itoa(nicer(20 - own))
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	must.Greater(t, 2, len(lines), must.Sprint("an autogroup line and several threads"))
	if autogroup := lines[0]; autogroup != "none" {
		// A new session starts a new autogroup at nice 0.
		must.StrHasSuffix(t, " nice "+strconv.Itoa(nicer(0)), autogroup)
	}
	for _, l := range lines[1:] {
		must.Eq(t, want, l)
	}
}

func TestNicer(t *testing.T) {
	must.Eq(t, supervisorNice, nicer(0))
	must.Eq(t, 19, nicer(15), must.Sprint("19 is the nicest"))
	must.Eq(t, supervisorNice-5, nicer(-5))
}
