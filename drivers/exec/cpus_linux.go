package exec

import (
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// pickCPUs returns a cpuset of n of the CPUs this agent may use. The
// scheduler counts cores but does not yet hand out which ones: the task
// gets the first n, which it may share with another task's.
func pickCPUs(n int) (string, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return "", fmt.Errorf("resources.cores: read the agent's CPUs: %w", err)
	}
	var ids []string
	for cpu := 0; cpu < len(set)*64 && len(ids) < n; cpu++ {
		if set.IsSet(cpu) {
			ids = append(ids, strconv.Itoa(cpu))
		}
	}
	if len(ids) < n {
		return "", fmt.Errorf("resources.cores: %d cores asked, this node has %d", n, len(ids))
	}
	return strings.Join(ids, ","), nil
}
