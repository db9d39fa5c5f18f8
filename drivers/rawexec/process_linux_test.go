package rawexec

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/shoenig/test/must"
)

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

// Releasing the mappings must leave the process working: its code and
// read-only data fault back in from the page cache.
func TestReleaseReadOnlyMappings(t *testing.T) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip("no /proc/self/smaps")
	}
	defer f.Close()
	ranges, err := releasableMappings(f)
	must.NoError(t, err)
	must.SliceNotEmpty(t, ranges)
	releaseReadOnlyMappings()
	must.Eq(t, `"works"`, strconv.Quote("works"))
}
