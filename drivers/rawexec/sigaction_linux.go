package rawexec

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// defaultActionEnds reports whether sig, sent to process pid, would meet
// its default action and that action ends a process: pid neither
// handles nor ignores it (its SigCgt and SigIgn masks), and it is none
// of the signals whose default is to be ignored or to stop.
func defaultActionEnds(pid int, sig syscall.Signal) bool {
	switch sig {
	case syscall.SIGCHLD, syscall.SIGURG, syscall.SIGWINCH, syscall.SIGCONT,
		syscall.SIGSTOP, syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU:
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return false
	}
	bit := uint64(1) << (uint(sig) - 1)
	for line := range strings.Lines(string(b)) {
		name, value, ok := strings.Cut(line, ":")
		if !ok || (name != "SigCgt" && name != "SigIgn") {
			continue
		}
		mask, err := strconv.ParseUint(strings.TrimSpace(value), 16, 64)
		if err != nil || mask&bit != 0 {
			return false
		}
	}
	return true
}
