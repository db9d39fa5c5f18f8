package structs

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The flattened forms that Diff compares: each block as a map from field
// name to value string. A nil receiver, an absent block, flattens to nil.
// Maps (meta, env, options) flatten to one field per key, "Meta[key]";
// driver configs flatten recursively, "args[0]", "mounts[0][source]".

func (j *Job) diffFields() map[string]string {
	if j == nil {
		return nil
	}
	m := map[string]string{
		"Name":      j.Name,
		"Type":      j.Type,
		"Priority":  strconv.Itoa(j.Priority),
		"AllAtOnce": strconv.FormatBool(j.AllAtOnce),
		"NodePool":  j.NodePool,
		"Stop":      strconv.FormatBool(j.Stop),
	}
	if j.TTLAfterFinished != 0 {
		m["TTLAfterFinished"] = j.TTLAfterFinished.String()
	}
	addKeyed(m, "Meta", j.Meta)
	if j.MaxRunDuration != nil {
		m["MaxRunDuration"] = durationField(*j.MaxRunDuration)
	}
	if d := j.Deadline; d != nil {
		if d.At != 0 {
			m["Deadline.At"] = strconv.FormatInt(d.At, 10)
		}
		if d.AfterLaunch != 0 {
			m["Deadline.AfterLaunch"] = durationField(d.AfterLaunch)
		}
	}
	return m
}

func (j *Job) datacenters() []string {
	if j == nil {
		return nil
	}
	return j.Datacenters
}

func (j *Job) constraints() []map[string]string {
	if j == nil {
		return nil
	}
	return constraintFields(j.Constraints)
}

func (j *Job) periodicFields() map[string]string {
	if j == nil || j.Periodic == nil {
		return nil
	}
	p := j.Periodic
	m := map[string]string{
		"Enabled":         strconv.FormatBool(p.Enabled),
		"Spec":            p.Spec,
		"SpecType":        p.SpecType,
		"ProhibitOverlap": strconv.FormatBool(p.ProhibitOverlap),
		"TimeZone":        p.TimeZone,
	}
	if p.Overlap != "" {
		m["Overlap"] = p.Overlap
	}
	if p.KeepLast != 0 {
		m["KeepLast"] = strconv.Itoa(p.KeepLast)
	}
	for i, spec := range p.Specs {
		m[fmt.Sprintf("Specs[%d]", i)] = spec
	}
	return m
}

func (j *Job) rescheduleFields() map[string]string {
	if j == nil {
		return nil
	}
	return rescheduleFields(j.Reschedule)
}

func (j *Job) groupNames() []string {
	if j == nil {
		return nil
	}
	return sortedNames(j.TaskGroups, func(tg *TaskGroup) string { return tg.Name })
}

func (j *Job) lookupGroup(name string) *TaskGroup {
	if j == nil {
		return nil
	}
	return j.LookupTaskGroup(name)
}

func (tg *TaskGroup) diffFields() map[string]string {
	if tg == nil {
		return nil
	}
	m := map[string]string{"Count": strconv.Itoa(tg.Count)}
	if tg.MaxRunDuration != nil {
		m["MaxRunDuration"] = durationField(*tg.MaxRunDuration)
	}
	if tg.MaxRunOutcome != "" {
		m["MaxRunOutcome"] = tg.MaxRunOutcome
	}
	if tg.MinRunDuration != nil {
		m["MinRunDuration"] = durationField(*tg.MinRunDuration)
	}
	if tg.MaxPendingDuration != nil {
		m["MaxPendingDuration"] = durationField(*tg.MaxPendingDuration)
	}
	if tg.MaxRunExtension != nil {
		m["MaxRunExtension"] = durationField(*tg.MaxRunExtension)
	}
	for i, r := range tg.OnFailure {
		if r != nil {
			m[fmt.Sprintf("OnFailure[%d]", i)] = r.String()
		}
	}
	if tg.ShutdownDelay != nil {
		m["ShutdownDelay"] = durationField(*tg.ShutdownDelay)
	}
	if tg.EphemeralDisk != nil {
		m["EphemeralDisk.SizeMB"] = strconv.Itoa(tg.EphemeralDisk.SizeMB)
	}
	addNetworkFields(m, tg.Networks)
	addServiceFields(m, tg.Services)
	addKeyed(m, "Meta", tg.Meta)
	addVolumeFields(m, tg.Volumes)
	return m
}

func (tg *TaskGroup) restartFields() map[string]string {
	if tg == nil {
		return nil
	}
	return restartFields(tg.RestartPolicy)
}

func (tg *TaskGroup) rescheduleFields() map[string]string {
	if tg == nil {
		return nil
	}
	return rescheduleFields(tg.ReschedulePolicy)
}

func (tg *TaskGroup) constraints() []map[string]string {
	if tg == nil {
		return nil
	}
	return constraintFields(tg.Constraints)
}

func (tg *TaskGroup) taskNames() []string {
	if tg == nil {
		return nil
	}
	return sortedNames(tg.Tasks, func(t *Task) string { return t.Name })
}

// sortedNames lists the names of the items that are not nil, sorted.
func sortedNames[T any](items []*T, name func(*T) string) []string {
	names := make([]string, 0, len(items))
	for _, item := range items {
		if item != nil {
			names = append(names, name(item))
		}
	}
	slices.Sort(names)
	return names
}

func (tg *TaskGroup) lookupTask(name string) *Task {
	if tg == nil {
		return nil
	}
	return tg.LookupTask(name)
}

func (t *Task) diffFields() map[string]string {
	if t == nil {
		return nil
	}
	m := map[string]string{
		"Driver":        t.Driver,
		"User":          t.User,
		"KillTimeout":   durationField(t.KillTimeout),
		"KillSignal":    t.KillSignal,
		"Leader":        strconv.FormatBool(t.Leader),
		"ShutdownDelay": durationField(t.ShutdownDelay),
	}
	if t.MaxRunDuration != nil {
		m["MaxRunDuration"] = durationField(*t.MaxRunDuration)
	}
	if w := t.MaxRunWarning; w != nil {
		m["MaxRunWarning.Signal"] = w.Signal
		m["MaxRunWarning.Before"] = durationField(w.Before)
	}
	if id := t.Identity; id != nil {
		m["Identity.Name"] = id.Name
		m["Identity.Audience"] = strings.Join(id.Audience, ",")
		m["Identity.Env"] = strconv.FormatBool(id.Env)
		m["Identity.File"] = strconv.FormatBool(id.File)
		m["Identity.TTL"] = durationField(id.TTL)
	}
	if d := t.DispatchPayload; d != nil {
		m["DispatchPayload.File"] = d.File
	}
	addKeyed(m, "Env", t.Env)
	addKeyed(m, "Meta", t.Meta)
	addVolumeMountFields(m, t.VolumeMounts)
	addServiceFields(m, t.Services)
	return m
}

func (t *Task) configFields() map[string]string {
	if t == nil || len(t.Config) == 0 {
		return nil
	}
	m := make(map[string]string)
	flattenValue(m, "", reflect.ValueOf(t.Config))
	return m
}

func (t *Task) resourceFields() map[string]string {
	if t == nil || t.Resources == nil {
		return nil
	}
	r := t.Resources
	return map[string]string{
		"CPU":         strconv.Itoa(r.CPU),
		"Cores":       strconv.Itoa(r.Cores),
		"MemoryMB":    strconv.Itoa(r.MemoryMB),
		"MemoryMaxMB": strconv.Itoa(r.MemoryMaxMB),
		"DiskMB":      strconv.Itoa(r.DiskMB),
	}
}

func (t *Task) lifecycleFields() map[string]string {
	if t == nil || t.Lifecycle == nil {
		return nil
	}
	return map[string]string{
		"Hook":    t.Lifecycle.Hook,
		"Sidecar": strconv.FormatBool(t.Lifecycle.Sidecar),
	}
}

func (t *Task) logConfigFields() map[string]string {
	if t == nil || t.LogConfig == nil {
		return nil
	}
	return map[string]string{
		"MaxFiles":      strconv.Itoa(t.LogConfig.MaxFiles),
		"MaxFileSizeMB": strconv.Itoa(t.LogConfig.MaxFileSizeMB),
		"Disabled":      strconv.FormatBool(t.LogConfig.Disabled),
	}
}

func (t *Task) restartFields() map[string]string {
	if t == nil {
		return nil
	}
	return restartFields(t.RestartPolicy)
}

func (t *Task) constraints() []map[string]string {
	if t == nil {
		return nil
	}
	return constraintFields(t.Constraints)
}

func (t *Task) artifactFields() []map[string]string {
	if t == nil {
		return nil
	}
	var out []map[string]string
	for _, a := range t.Artifacts {
		if a == nil {
			continue
		}
		m := map[string]string{
			"GetterSource":   a.GetterSource,
			"GetterMode":     a.GetterMode,
			"GetterInsecure": strconv.FormatBool(a.GetterInsecure),
			"RelativeDest":   a.RelativeDest,
			"Chown":          strconv.FormatBool(a.Chown),
		}
		addKeyed(m, "GetterOptions", a.GetterOptions)
		addKeyed(m, "GetterHeaders", a.GetterHeaders)
		out = append(out, m)
	}
	return out
}

func constraintFields(cs []*Constraint) []map[string]string {
	var out []map[string]string
	for _, c := range cs {
		if c != nil {
			out = append(out, map[string]string{"LTarget": c.LTarget, "RTarget": c.RTarget, "Operand": c.Operand})
		}
	}
	return out
}

func restartFields(p *RestartPolicy) map[string]string {
	if p == nil {
		return nil
	}
	return map[string]string{
		"Attempts": strconv.Itoa(p.Attempts),
		"Interval": durationField(p.Interval),
		"Delay":    durationField(p.Delay),
		"Mode":     p.Mode,
	}
}

func rescheduleFields(p *ReschedulePolicy) map[string]string {
	if p == nil {
		return nil
	}
	return map[string]string{
		"Attempts":      strconv.Itoa(p.Attempts),
		"Interval":      durationField(p.Interval),
		"Delay":         durationField(p.Delay),
		"DelayFunction": p.DelayFunction,
		"MaxDelay":      durationField(p.MaxDelay),
		"Unlimited":     strconv.FormatBool(p.Unlimited),
	}
}

// durationField is a duration as the wire has it: integer nanoseconds.
func durationField(d time.Duration) string {
	return strconv.FormatInt(int64(d), 10)
}

// addKeyed adds one field per key of values, named "prefix[key]".
func addKeyed(m map[string]string, prefix string, values map[string]string) {
	for k, v := range values {
		m[prefix+"["+k+"]"] = v
	}
}

// flattenValue adds the leaves of a driver config value to m. Numbers print
// the same whether they were decoded as integers or as floats, so that a
// config that went through JSON compares equal to the one submitted.
func flattenValue(m map[string]string, name string, v reflect.Value) {
	for v.IsValid() && (v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer) {
		if v.IsNil() {
			m[name] = ""
			return
		}
		v = v.Elem()
	}
	if !v.IsValid() {
		m[name] = ""
		return
	}
	switch v.Kind() {
	case reflect.Map:
		for _, key := range v.MapKeys() {
			flattenValue(m, childName(name, fmt.Sprint(key.Interface())), v.MapIndex(key))
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			flattenValue(m, fmt.Sprintf("%s[%d]", name, i), v.Index(i))
		}
	case reflect.Float32, reflect.Float64:
		m[name] = strconv.FormatFloat(v.Float(), 'f', -1, 64)
	default:
		m[name] = fmt.Sprint(v.Interface())
	}
}

// childName is the name of a key within a config value: the key itself at
// the top, "parent[key]" below.
func childName(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "[" + key + "]"
}
