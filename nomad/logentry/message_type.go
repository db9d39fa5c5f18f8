package logentry

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
	// Variables take 30 on, apart from what other work adds after 25.
	MsgVariableWrite  MessageType = 30
	MsgVariablesRekey MessageType = 31
	// Service registrations (built-in service discovery).
	MsgServiceUpsert MessageType = 32
	MsgServiceDelete MessageType = 33
	// Garbage collection takes 40 on, clear of what other work adds
	// after 33.
	MsgGCDelete MessageType = 40
	// Deployments take 50 on, apart from what other work adds meanwhile.
	MsgDeploymentUpdate      MessageType = 50
	MsgDeploymentAllocHealth MessageType = 51
)

// messageTypes describes every known entry type: its name and a
// constructor for the entry its body decodes into.
var messageTypes = map[MessageType]struct {
	name     string
	newEntry func() Entry
}{
	MsgJobRegister:            {"JobRegister", func() Entry { return new(JobRegister) }},
	MsgJobDeregister:          {"JobDeregister", func() Entry { return new(JobDeregister) }},
	MsgEvalUpdate:             {"EvalUpdate", func() Entry { return new(EvalUpdate) }},
	MsgEvalDelete:             {"EvalDelete", func() Entry { return new(EvalDelete) }},
	MsgAllocUpdate:            {"AllocUpdate", func() Entry { return new(AllocUpdate) }},
	MsgAllocClientUpdate:      {"AllocClientUpdate", func() Entry { return new(AllocClientUpdate) }},
	MsgAllocDesiredStatus:     {"AllocDesiredStatus", func() Entry { return new(AllocDesiredStatus) }},
	MsgNodeRegister:           {"NodeRegister", func() Entry { return new(NodeRegister) }},
	MsgNodeDeregister:         {"NodeDeregister", func() Entry { return new(NodeDeregister) }},
	MsgNodeUpdateStatus:       {"NodeUpdateStatus", func() Entry { return new(NodeUpdateStatus) }},
	MsgNodeUpdateEligibility:  {"NodeUpdateEligibility", func() Entry { return new(NodeUpdateEligibility) }},
	MsgNodeUpdateDrain:        {"NodeUpdateDrain", func() Entry { return new(NodeUpdateDrain) }},
	MsgPeriodicLaunch:         {"PeriodicLaunch", func() Entry { return new(PeriodicLaunch) }},
	MsgJobStatusUpdate:        {"JobStatusUpdate", func() Entry { return new(JobStatusUpdate) }},
	MsgAllocDesiredTransition: {"AllocDesiredTransition", func() Entry { return new(AllocTransition) }},
	MsgACLPolicyUpsert:        {"ACLPolicyUpsert", func() Entry { return new(ACLPolicyUpsert) }},
	MsgACLPolicyDelete:        {"ACLPolicyDelete", func() Entry { return new(ACLPolicyDelete) }},
	MsgACLTokenUpsert:         {"ACLTokenUpsert", func() Entry { return new(ACLTokenUpsert) }},
	MsgACLTokenDelete:         {"ACLTokenDelete", func() Entry { return new(ACLTokenDelete) }},
	MsgACLTokenBootstrap:      {"ACLTokenBootstrap", func() Entry { return new(ACLTokenBootstrap) }},
	MsgNamespaceUpsert:        {"NamespaceUpsert", func() Entry { return new(NamespaceUpsert) }},
	MsgNamespaceDelete:        {"NamespaceDelete", func() Entry { return new(NamespaceDelete) }},
	MsgAllocMaxRunOverride:    {"AllocMaxRunOverride", func() Entry { return new(AllocMaxRun) }},
	MsgRootKeyUpsert:          {"RootKeyUpsert", func() Entry { return new(RootKeyUpsert) }},
	MsgRootKeyDelete:          {"RootKeyDelete", func() Entry { return new(RootKeyDelete) }},
	MsgVariableWrite:          {"VariableWrite", func() Entry { return new(VariableWrite) }},
	MsgVariablesRekey:         {"VariablesRekey", func() Entry { return new(VariablesRekey) }},
	MsgServiceUpsert:          {"ServiceRegistrationUpsert", func() Entry { return new(ServiceRegistrationUpsert) }},
	MsgServiceDelete:          {"ServiceRegistrationDelete", func() Entry { return new(ServiceRegistrationDelete) }},
	MsgGCDelete:               {"GCDelete", func() Entry { return new(GCDelete) }},
	MsgDeploymentUpdate:       {"DeploymentUpdate", func() Entry { return new(DeploymentUpdate) }},
	MsgDeploymentAllocHealth:  {"DeploymentAllocHealth", func() Entry { return new(DeploymentAllocHealth) }},
}

func (t MessageType) String() string {
	if mt, ok := messageTypes[t]; ok {
		return mt.name
	}
	return fmt.Sprintf("MessageType(%d)", uint8(t))
}

// New returns an empty entry of type t, or an error for a type this
// server does not know (a log written by a newer version, or corruption).
func New(t MessageType) (Entry, error) {
	mt, ok := messageTypes[t]
	if !ok {
		return nil, fmt.Errorf("unknown raft message type %d", uint8(t))
	}
	return mt.newEntry(), nil
}
