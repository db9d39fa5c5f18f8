package nomad

import "fmt"

// MessageType is the first byte of a raft log entry; the JSON body that
// follows it is the entry of that type. The values are written to disk:
// never renumber or reuse one.
type MessageType uint8

// Log entry types.
const (
	MsgJobRegister            MessageType = 1
	MsgJobDeregister          MessageType = 2
	MsgEvalUpdate             MessageType = 3
	MsgEvalDelete             MessageType = 4
	MsgAllocUpdate            MessageType = 5
	MsgAllocClientUpdate      MessageType = 6
	MsgAllocDesiredStatus     MessageType = 7
	MsgNodeRegister           MessageType = 8
	MsgNodeDeregister         MessageType = 9
	MsgNodeUpdateStatus       MessageType = 10
	MsgNodeUpdateEligibility  MessageType = 11
	MsgNodeUpdateDrain        MessageType = 12
	MsgPeriodicLaunch         MessageType = 13
	MsgJobStatusUpdate        MessageType = 14
	MsgAllocDesiredTransition MessageType = 15
	MsgACLPolicyUpsert        MessageType = 16
	MsgACLPolicyDelete        MessageType = 17
	MsgACLTokenUpsert         MessageType = 18
	MsgACLTokenDelete         MessageType = 19
	MsgACLTokenBootstrap      MessageType = 20
	MsgNamespaceUpsert        MessageType = 21
	MsgNamespaceDelete        MessageType = 22
	MsgAllocMaxRunOverride    MessageType = 23
	MsgRootKeyUpsert          MessageType = 24
	MsgRootKeyDelete          MessageType = 25
)

// messageTypes describes every known entry type: its name and a
// constructor for the entry its body decodes into.
var messageTypes = map[MessageType]struct {
	name     string
	newEntry func() logEntry
}{
	MsgJobRegister:            {"JobRegister", func() logEntry { return new(JobRegisterEntry) }},
	MsgJobDeregister:          {"JobDeregister", func() logEntry { return new(JobDeregisterEntry) }},
	MsgEvalUpdate:             {"EvalUpdate", func() logEntry { return new(EvalUpdateEntry) }},
	MsgEvalDelete:             {"EvalDelete", func() logEntry { return new(EvalDeleteEntry) }},
	MsgAllocUpdate:            {"AllocUpdate", func() logEntry { return new(AllocUpdateEntry) }},
	MsgAllocClientUpdate:      {"AllocClientUpdate", func() logEntry { return new(AllocClientUpdateEntry) }},
	MsgAllocDesiredStatus:     {"AllocDesiredStatus", func() logEntry { return new(AllocDesiredStatusEntry) }},
	MsgNodeRegister:           {"NodeRegister", func() logEntry { return new(NodeRegisterEntry) }},
	MsgNodeDeregister:         {"NodeDeregister", func() logEntry { return new(NodeDeregisterEntry) }},
	MsgNodeUpdateStatus:       {"NodeUpdateStatus", func() logEntry { return new(NodeUpdateStatusEntry) }},
	MsgNodeUpdateEligibility:  {"NodeUpdateEligibility", func() logEntry { return new(NodeUpdateEligibilityEntry) }},
	MsgNodeUpdateDrain:        {"NodeUpdateDrain", func() logEntry { return new(NodeUpdateDrainEntry) }},
	MsgPeriodicLaunch:         {"PeriodicLaunch", func() logEntry { return new(PeriodicLaunchEntry) }},
	MsgJobStatusUpdate:        {"JobStatusUpdate", func() logEntry { return new(JobStatusUpdateEntry) }},
	MsgAllocDesiredTransition: {"AllocDesiredTransition", func() logEntry { return new(AllocTransitionEntry) }},
	MsgACLPolicyUpsert:        {"ACLPolicyUpsert", func() logEntry { return new(ACLPolicyUpsertEntry) }},
	MsgACLPolicyDelete:        {"ACLPolicyDelete", func() logEntry { return new(ACLPolicyDeleteEntry) }},
	MsgACLTokenUpsert:         {"ACLTokenUpsert", func() logEntry { return new(ACLTokenUpsertEntry) }},
	MsgACLTokenDelete:         {"ACLTokenDelete", func() logEntry { return new(ACLTokenDeleteEntry) }},
	MsgACLTokenBootstrap:      {"ACLTokenBootstrap", func() logEntry { return new(ACLTokenBootstrapEntry) }},
	MsgNamespaceUpsert:        {"NamespaceUpsert", func() logEntry { return new(NamespaceUpsertEntry) }},
	MsgNamespaceDelete:        {"NamespaceDelete", func() logEntry { return new(NamespaceDeleteEntry) }},
	MsgAllocMaxRunOverride:    {"AllocMaxRunOverride", func() logEntry { return new(AllocMaxRunEntry) }},
	MsgRootKeyUpsert:          {"RootKeyUpsert", func() logEntry { return new(RootKeyUpsertEntry) }},
	MsgRootKeyDelete:          {"RootKeyDelete", func() logEntry { return new(RootKeyDeleteEntry) }},
}

func (t MessageType) String() string {
	if mt, ok := messageTypes[t]; ok {
		return mt.name
	}
	return fmt.Sprintf("MessageType(%d)", uint8(t))
}

// newLogEntry returns an empty entry of type t, or an error for a type this
// server does not know (a log written by a newer version, or corruption).
func newLogEntry(t MessageType) (logEntry, error) {
	mt, ok := messageTypes[t]
	if !ok {
		return nil, fmt.Errorf("unknown raft message type %d", uint8(t))
	}
	return mt.newEntry(), nil
}
