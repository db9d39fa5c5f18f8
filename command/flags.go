package command

import "strings"

// stringSliceFlag is a repeatable string flag, e.g. -var a=1 -var b=2.
type stringSliceFlag []string

func (s *stringSliceFlag) String() string { return strings.Join(*s, ",") }

func (s *stringSliceFlag) Set(v string) error {
	*s = append(*s, v)
	return nil
}
