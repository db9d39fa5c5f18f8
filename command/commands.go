package command

import (
	"github.com/hashicorp/cli"

	"github.com/drover-io/drover/command/agent"
)

// hiddenCommands are registered but left out of the help listing: they are
// for Drover's own use.
var hiddenCommands = []string{"task-supervisor"}

// Commands returns every CLI command keyed by its words, e.g. "job run".
func Commands(meta Meta) map[string]cli.CommandFactory {
	return map[string]cli.CommandFactory{
		"agent": func() (cli.Command, error) { return agent.NewCommand(meta.Ui), nil },

		"acl":               func() (cli.Command, error) { return &ACLCommand{Meta: meta}, nil },
		"acl bootstrap":     func() (cli.Command, error) { return &ACLBootstrapCommand{Meta: meta}, nil },
		"acl policy":        func() (cli.Command, error) { return &ACLPolicyCommand{Meta: meta}, nil },
		"acl policy apply":  func() (cli.Command, error) { return &ACLPolicyApplyCommand{Meta: meta}, nil },
		"acl policy delete": func() (cli.Command, error) { return &ACLPolicyDeleteCommand{Meta: meta}, nil },
		"acl policy info":   func() (cli.Command, error) { return &ACLPolicyInfoCommand{Meta: meta}, nil },
		"acl policy list":   func() (cli.Command, error) { return &ACLPolicyListCommand{Meta: meta}, nil },
		"acl token":         func() (cli.Command, error) { return &ACLTokenCommand{Meta: meta}, nil },
		"acl token create":  func() (cli.Command, error) { return &ACLTokenCreateCommand{Meta: meta}, nil },
		"acl token delete":  func() (cli.Command, error) { return &ACLTokenDeleteCommand{Meta: meta}, nil },
		"acl token info":    func() (cli.Command, error) { return &ACLTokenInfoCommand{Meta: meta}, nil },
		"acl token list":    func() (cli.Command, error) { return &ACLTokenListCommand{Meta: meta}, nil },
		"acl token self":    func() (cli.Command, error) { return &ACLTokenSelfCommand{Meta: meta}, nil },
		"acl token update":  func() (cli.Command, error) { return &ACLTokenUpdateCommand{Meta: meta}, nil },

		"alloc":          func() (cli.Command, error) { return &AllocCommand{Meta: meta}, nil },
		"alloc deadline": func() (cli.Command, error) { return &AllocDeadlineCommand{Meta: meta}, nil },
		"alloc exec":     func() (cli.Command, error) { return &AllocExecCommand{Meta: meta}, nil },
		"alloc logs":     func() (cli.Command, error) { return &AllocLogsCommand{Meta: meta}, nil },
		"alloc restart":  func() (cli.Command, error) { return &AllocRestartCommand{Meta: meta}, nil },
		"alloc signal":   func() (cli.Command, error) { return &AllocSignalCommand{Meta: meta}, nil },
		"alloc checks":   func() (cli.Command, error) { return &AllocChecksCommand{Meta: meta}, nil },
		"alloc status":   func() (cli.Command, error) { return &AllocStatusCommand{Meta: meta}, nil },
		"alloc stop":     func() (cli.Command, error) { return &AllocStopCommand{Meta: meta}, nil },

		"deployment":        func() (cli.Command, error) { return &DeploymentCommand{Meta: meta}, nil },
		"deployment list":   func() (cli.Command, error) { return &DeploymentListCommand{Meta: meta}, nil },
		"deployment status": func() (cli.Command, error) { return &DeploymentStatusCommand{Meta: meta}, nil },
		"deployment fail":   func() (cli.Command, error) { return &DeploymentActionCommand{Meta: meta, action: deploymentFail}, nil },
		"deployment pause":  func() (cli.Command, error) { return &DeploymentActionCommand{Meta: meta, action: deploymentPause}, nil },
		"deployment resume": func() (cli.Command, error) {
			return &DeploymentActionCommand{Meta: meta, action: deploymentResume}, nil
		},
		"deployment promote": func() (cli.Command, error) {
			return &DeploymentActionCommand{Meta: meta, action: deploymentPromote}, nil
		},
		"eval":        func() (cli.Command, error) { return &EvalCommand{Meta: meta}, nil },
		"eval status": func() (cli.Command, error) { return &EvalStatusCommand{Meta: meta}, nil },

		"job":                func() (cli.Command, error) { return &JobCommand{Meta: meta}, nil },
		"job allocs":         func() (cli.Command, error) { return &JobAllocsCommand{Meta: meta}, nil },
		"job dispatch":       func() (cli.Command, error) { return &JobDispatchCommand{Meta: meta}, nil },
		"job history":        func() (cli.Command, error) { return &JobHistoryCommand{Meta: meta}, nil },
		"job init":           func() (cli.Command, error) { return &JobInitCommand{Meta: meta}, nil },
		"job inspect":        func() (cli.Command, error) { return &JobInspectCommand{Meta: meta}, nil },
		"job periodic":       func() (cli.Command, error) { return &JobPeriodicCommand{Meta: meta}, nil },
		"job periodic force": func() (cli.Command, error) { return &JobPeriodicForceCommand{Meta: meta}, nil },
		"job plan":           func() (cli.Command, error) { return &JobPlanCommand{Meta: meta}, nil },
		"job run":            func() (cli.Command, error) { return &JobRunCommand{Meta: meta}, nil },
		"job status":         func() (cli.Command, error) { return &JobStatusCommand{Meta: meta}, nil },
		"job stop":           func() (cli.Command, error) { return &JobStopCommand{Meta: meta}, nil },
		"job validate":       func() (cli.Command, error) { return &JobValidateCommand{Meta: meta}, nil },

		"namespace":        func() (cli.Command, error) { return &NamespaceCommand{Meta: meta}, nil },
		"namespace apply":  func() (cli.Command, error) { return &NamespaceApplyCommand{Meta: meta}, nil },
		"namespace delete": func() (cli.Command, error) { return &NamespaceDeleteCommand{Meta: meta}, nil },
		"namespace list":   func() (cli.Command, error) { return &NamespaceListCommand{Meta: meta}, nil },
		"namespace status": func() (cli.Command, error) { return &NamespaceStatusCommand{Meta: meta}, nil },
		"service":          func() (cli.Command, error) { return &ServiceCommand{Meta: meta}, nil },
		"service delete":   func() (cli.Command, error) { return &ServiceDeleteCommand{Meta: meta}, nil },
		"service info":     func() (cli.Command, error) { return &ServiceInfoCommand{Meta: meta}, nil },
		"service list":     func() (cli.Command, error) { return &ServiceListCommand{Meta: meta}, nil },
		"var":              func() (cli.Command, error) { return &VarCommand{Meta: meta}, nil },
		"var get":          func() (cli.Command, error) { return &VarGetCommand{Meta: meta}, nil },
		"var list":         func() (cli.Command, error) { return &VarListCommand{Meta: meta}, nil },
		"var lock":         func() (cli.Command, error) { return &VarLockCommand{Meta: meta}, nil },
		"var purge":        func() (cli.Command, error) { return &VarPurgeCommand{Meta: meta}, nil },
		"var put":          func() (cli.Command, error) { return &VarPutCommand{Meta: meta}, nil },

		"node":             func() (cli.Command, error) { return &NodeCommand{Meta: meta}, nil },
		"node drain":       func() (cli.Command, error) { return &NodeDrainCommand{Meta: meta}, nil },
		"node eligibility": func() (cli.Command, error) { return &NodeEligibilityCommand{Meta: meta}, nil },
		"node status":      func() (cli.Command, error) { return &NodeStatusCommand{Meta: meta}, nil },

		"operator":                  func() (cli.Command, error) { return &OperatorCommand{Meta: meta}, nil },
		"operator keygen":           func() (cli.Command, error) { return &OperatorKeygenCommand{Meta: meta}, nil },
		"operator metrics":          func() (cli.Command, error) { return &OperatorMetricsCommand{Meta: meta}, nil },
		"operator snapshot":         func() (cli.Command, error) { return &OperatorSnapshotCommand{Meta: meta}, nil },
		"operator snapshot inspect": func() (cli.Command, error) { return &OperatorSnapshotInspectCommand{Meta: meta}, nil },
		"operator snapshot restore": func() (cli.Command, error) { return &OperatorSnapshotRestoreCommand{Meta: meta}, nil },
		"operator snapshot save":    func() (cli.Command, error) { return &OperatorSnapshotSaveCommand{Meta: meta}, nil },

		"operator root":                func() (cli.Command, error) { return &OperatorRootCommand{Meta: meta}, nil },
		"operator root keyring":        func() (cli.Command, error) { return &OperatorRootKeyringCommand{Meta: meta}, nil },
		"operator root keyring list":   func() (cli.Command, error) { return &OperatorRootKeyringListCommand{Meta: meta}, nil },
		"operator root keyring remove": func() (cli.Command, error) { return &OperatorRootKeyringRemoveCommand{Meta: meta}, nil },
		"operator root keyring rotate": func() (cli.Command, error) { return &OperatorRootKeyringRotateCommand{Meta: meta}, nil },

		"server":         func() (cli.Command, error) { return &ServerCommand{Meta: meta}, nil },
		"server members": func() (cli.Command, error) { return &ServerMembersCommand{Meta: meta}, nil },

		"tls":             func() (cli.Command, error) { return &TLSCommand{Meta: meta}, nil },
		"tls ca":          func() (cli.Command, error) { return &TLSCACommand{Meta: meta}, nil },
		"tls ca create":   func() (cli.Command, error) { return &TLSCACreateCommand{Meta: meta}, nil },
		"tls cert":        func() (cli.Command, error) { return &TLSCertCommand{Meta: meta}, nil },
		"tls cert create": func() (cli.Command, error) { return &TLSCertCreateCommand{Meta: meta}, nil },

		"status": func() (cli.Command, error) { return &StatusCommand{Meta: meta}, nil },

		"system":                     func() (cli.Command, error) { return &SystemCommand{Meta: meta}, nil },
		"system gc":                  func() (cli.Command, error) { return &SystemGCCommand{Meta: meta}, nil },
		"system reconcile":           func() (cli.Command, error) { return &SystemReconcileCommand{Meta: meta}, nil },
		"system reconcile summaries": func() (cli.Command, error) { return &SystemReconcileSummariesCommand{Meta: meta}, nil },

		"task-supervisor": func() (cli.Command, error) { return &TaskSupervisorCommand{Meta: meta}, nil },

		"ui": func() (cli.Command, error) { return &UICommand{Meta: meta}, nil },

		"version": func() (cli.Command, error) { return &VersionCommand{Meta: meta}, nil },
	}
}
