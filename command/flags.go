package command

import (
	"fmt"
	"strconv"
	"strings"
)

// stringSliceFlag is a repeatable string flag, e.g. -var a=1 -var b=2.
type stringSliceFlag []string

func (s *stringSliceFlag) String() string { return strings.Join(*s, ",") }

func (s *stringSliceFlag) Set(v string) error {
	*s = append(*s, v)
	return nil
}

// parseVersionFlag reads a -version flag: nil when not given.
func parseVersionFlag(value string) (*uint64, error) {
	if value == "" {
		return nil, nil
	}
	v, err := strconv.ParseUint(value, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("-version must be a non-negative integer, not %q", value)
	}
	return &v, nil
}
