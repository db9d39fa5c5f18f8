package structs

import (
	"fmt"
	"strconv"
	"strings"
)

// AllocName returns the name of the idx-th allocation of a group:
// "job.group[idx]".
func AllocName(job, group string, idx uint) string {
	return fmt.Sprintf("%s.%s[%d]", job, group, idx)
}

// ParseAllocIndex returns the index in an allocation name made by
// AllocName. Job and group names may themselves hold brackets, so the index
// is the last bracketed number.
func ParseAllocIndex(name string) (uint, error) {
	open := strings.LastIndexByte(name, '[')
	if open < 0 || !strings.HasSuffix(name, "]") {
		return 0, fmt.Errorf("allocation name %q does not end in [index]", name)
	}
	idx, err := strconv.ParseUint(name[open+1:len(name)-1], 10, 0)
	if err != nil {
		return 0, fmt.Errorf("allocation name %q: parse index: %w", name, err)
	}
	return uint(idx), nil
}

// Index returns the allocation's index within its group, from its name.
// Names the scheduler gives (AllocName) always parse; any other name is
// index 0.
func (a *Allocation) Index() uint {
	idx, err := ParseAllocIndex(a.Name)
	if err != nil {
		return 0
	}
	return idx
}
