package structs

import (
	"fmt"
	"strconv"
	"strings"
)

// addServiceFields adds a group's or a task's services to its diff
// fields, each under Service[<name>] (Service[<name>:<port>] when two
// share a name), so that a plan shows what a change of them edits.
func addServiceFields(m map[string]string, services []*Service) {
	names := map[string]int{}
	for _, s := range services {
		if s != nil {
			names[s.Name]++
		}
	}
	for _, s := range services {
		if s == nil {
			continue
		}
		key := s.Name
		if names[s.Name] > 1 {
			key += ":" + s.PortLabel
		}
		prefix := "Service[" + key + "]."
		m[prefix+"PortLabel"] = s.PortLabel
		m[prefix+"Tags"] = strings.Join(s.Tags, ",")
		m[prefix+"AddressMode"] = s.AddressMode
		m[prefix+"Address"] = s.Address
		m[prefix+"TaskName"] = s.TaskName
		m[prefix+"Provider"] = s.Provider
		addKeyed(m, prefix+"Meta", s.Meta)
		for i, c := range s.Checks {
			cp := fmt.Sprintf("%sCheck[%d].", prefix, i)
			m[cp+"Type"] = c.Type
			m[cp+"Path"] = c.Path
			m[cp+"PortLabel"] = c.PortLabel
			m[cp+"Interval"] = durationField(c.Interval)
			m[cp+"Timeout"] = durationField(c.Timeout)
			m[cp+"Method"] = c.Method
			m[cp+"Protocol"] = c.Protocol
			m[cp+"TLSSkipVerify"] = strconv.FormatBool(c.TLSSkipVerify)
			m[cp+"Command"] = c.Command
			m[cp+"Args"] = strings.Join(c.Args, " ")
			m[cp+"TaskName"] = c.TaskName
			if r := c.CheckRestart; r != nil {
				m[cp+"CheckRestart.Limit"] = strconv.Itoa(r.Limit)
				m[cp+"CheckRestart.Grace"] = durationField(r.Grace)
				m[cp+"CheckRestart.IgnoreWarnings"] = strconv.FormatBool(r.IgnoreWarnings)
			}
		}
	}
}
