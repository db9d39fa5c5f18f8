package structs

import "fmt"

// parameterizedFields are the job's parameterized block as diff fields.
func (j *Job) parameterizedFields() map[string]string {
	if j == nil || j.ParameterizedJob == nil {
		return nil
	}
	p := j.ParameterizedJob
	m := map[string]string{"Payload": p.Payload}
	for i, k := range p.MetaRequired {
		m[fmt.Sprintf("MetaRequired[%d]", i)] = k
	}
	for i, k := range p.MetaOptional {
		m[fmt.Sprintf("MetaOptional[%d]", i)] = k
	}
	if p.MaxRunDurationMax != nil {
		m["MaxRunDurationMax"] = durationField(*p.MaxRunDurationMax)
	}
	return m
}
