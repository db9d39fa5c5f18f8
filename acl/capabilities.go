package acl

import "slices"

// Policy dispositions: the coarse value of a rule's policy field. Merged
// across policies, the most privilege wins, except deny, which beats
// everything.
const (
	PolicyDeny  = "deny"
	PolicyRead  = "read"
	PolicyList  = "list"
	PolicyWrite = "write"
	PolicyScale = "scale"
)

// Namespace capabilities, as Nomad names them. A namespace rule's policy
// field is shorthand for a set of them (see namespacePolicyCapabilities).
const (
	CapDeny                      = "deny"
	CapListJobs                  = "list-jobs"
	CapParseJob                  = "parse-job"
	CapReadJob                   = "read-job"
	CapSubmitJob                 = "submit-job"
	CapDispatchJob               = "dispatch-job"
	CapReadLogs                  = "read-logs"
	CapReadFS                    = "read-fs"
	CapAllocExec                 = "alloc-exec"
	CapAllocNodeExec             = "alloc-node-exec"
	CapAllocLifecycle            = "alloc-lifecycle"
	CapSentinelOverride          = "sentinel-override"
	CapCSIRegisterPlugin         = "csi-register-plugin"
	CapCSIWriteVolume            = "csi-write-volume"
	CapCSIReadVolume             = "csi-read-volume"
	CapCSIListVolume             = "csi-list-volume"
	CapCSIMountVolume            = "csi-mount-volume"
	CapHostVolumeCreate          = "host-volume-create"
	CapHostVolumeRegister        = "host-volume-register"
	CapHostVolumeRead            = "host-volume-read"
	CapHostVolumeWrite           = "host-volume-write"
	CapHostVolumeDelete          = "host-volume-delete"
	CapListScalingPolicies       = "list-scaling-policies"
	CapReadScalingPolicy         = "read-scaling-policy"
	CapReadJobScaling            = "read-job-scaling"
	CapScaleJob                  = "scale-job"
	CapSubmitRecommendation      = "submit-recommendation"
	CapRegisterJob               = "register-job"
	CapRevertJob                 = "revert-job"
	CapDeregisterJob             = "deregister-job"
	CapPurgeJob                  = "purge-job"
	CapEvaluateJob               = "evaluate-job"
	CapPlanJob                   = "plan-job"
	CapTagJobVersion             = "tag-job-version"
	CapStableJob                 = "stable-job"
	CapFailDeployment            = "fail-deployment"
	CapPauseDeployment           = "pause-deployment"
	CapPromoteDeployment         = "promote-deployment"
	CapUnblockDeployment         = "unblock-deployment"
	CapCancelDeployment          = "cancel-deployment"
	CapSetAllocHealthDeployment  = "set-alloc-health-deployment"
	CapGCAllocation              = "gc-allocation"
	CapPauseAllocation           = "pause-allocation"
	CapForcePeriodicJob          = "force-periodic-job"
	CapDeleteServiceRegistration = "delete-service-registration"

	// CapSubmitRawExec is Drover's own: registering a job with a raw_exec
	// task, which runs as whatever user the client runs as (root, on most
	// machines), needs it on top of submit-job. No policy disposition
	// includes it, not even write: it is granted by name only.
	CapSubmitRawExec = "submit-raw-exec"
)

// namespaceCapabilities lists every capability a namespace rule may grant.
var namespaceCapabilities = []string{
	CapDeny, CapListJobs, CapParseJob, CapReadJob, CapSubmitJob, CapDispatchJob,
	CapReadLogs, CapReadFS, CapAllocExec, CapAllocNodeExec, CapAllocLifecycle,
	CapSentinelOverride, CapCSIRegisterPlugin, CapCSIWriteVolume, CapCSIReadVolume,
	CapCSIListVolume, CapCSIMountVolume, CapHostVolumeCreate, CapHostVolumeRegister,
	CapHostVolumeRead, CapHostVolumeWrite, CapHostVolumeDelete, CapListScalingPolicies,
	CapReadScalingPolicy, CapReadJobScaling, CapScaleJob, CapSubmitRecommendation,
	CapRegisterJob, CapRevertJob, CapDeregisterJob, CapPurgeJob, CapEvaluateJob,
	CapPlanJob, CapTagJobVersion, CapStableJob, CapFailDeployment, CapPauseDeployment,
	CapPromoteDeployment, CapUnblockDeployment, CapCancelDeployment,
	CapSetAllocHealthDeployment, CapGCAllocation, CapPauseAllocation,
	CapForcePeriodicJob, CapDeleteServiceRegistration, CapSubmitRawExec,
}

// NamespaceCapabilities returns every capability a namespace rule may
// grant, for documentation and tests.
func NamespaceCapabilities() []string { return slices.Clone(namespaceCapabilities) }

// readCapabilities is what a namespace rule's policy = "read" grants.
var readCapabilities = []string{
	CapListJobs, CapParseJob, CapReadJob, CapCSIListVolume, CapCSIReadVolume,
	CapReadJobScaling, CapListScalingPolicies, CapReadScalingPolicy, CapHostVolumeRead,
}

// writeCapabilities is what policy = "write" grants: read and more. It
// leaves out alloc-node-exec, as Nomad does, and submit-raw-exec.
var writeCapabilities = append(slices.Clone(readCapabilities),
	CapScaleJob, CapSubmitJob, CapDispatchJob, CapReadLogs, CapReadFS, CapAllocExec,
	CapAllocLifecycle, CapCSIMountVolume, CapCSIWriteVolume, CapSubmitRecommendation,
	CapHostVolumeCreate,
)

// scaleCapabilities is what policy = "scale" grants.
var scaleCapabilities = []string{
	CapListScalingPolicies, CapReadScalingPolicy, CapReadJobScaling, CapScaleJob,
	CapReadJob, CapSubmitRecommendation,
}

// namespacePolicyCapabilities expands a namespace rule's policy field.
func namespacePolicyCapabilities(policy string) []string {
	switch policy {
	case PolicyDeny:
		return []string{CapDeny}
	case PolicyRead:
		return readCapabilities
	case PolicyWrite:
		return writeCapabilities
	case PolicyScale:
		return scaleCapabilities
	}
	return nil
}

// impliedCapabilities are the capabilities a fine-grained one brings along.
var impliedCapabilities = map[string][]string{
	CapHostVolumeWrite:    {CapHostVolumeRegister, CapHostVolumeCreate, CapHostVolumeDelete, CapHostVolumeRead},
	CapHostVolumeRegister: {CapHostVolumeCreate, CapHostVolumeRead},
	CapHostVolumeCreate:   {CapHostVolumeRead},
}

// Host volume capabilities.
const (
	HostVolumeDeny           = "deny"
	HostVolumeMountReadOnly  = "mount-readonly"
	HostVolumeMountReadWrite = "mount-readwrite"
)

var hostVolumeCapabilities = []string{HostVolumeDeny, HostVolumeMountReadOnly, HostVolumeMountReadWrite}

func hostVolumePolicyCapabilities(policy string) []string {
	switch policy {
	case PolicyDeny:
		return []string{HostVolumeDeny}
	case PolicyRead:
		return []string{HostVolumeMountReadOnly}
	case PolicyWrite:
		return []string{HostVolumeMountReadOnly, HostVolumeMountReadWrite}
	}
	return nil
}

// Node pool capabilities.
const (
	NodePoolDeny   = "deny"
	NodePoolRead   = "read"
	NodePoolWrite  = "write"
	NodePoolDelete = "delete"
)

var nodePoolCapabilities = []string{NodePoolDeny, NodePoolRead, NodePoolWrite, NodePoolDelete}

func nodePoolPolicyCapabilities(policy string) []string {
	switch policy {
	case PolicyDeny:
		return []string{NodePoolDeny}
	case PolicyRead:
		return []string{NodePoolRead}
	case PolicyWrite:
		return []string{NodePoolDelete, NodePoolRead, NodePoolWrite}
	}
	return nil
}

// Operator capabilities, on top of the operator rule's policy.
const (
	OperatorDeny         = "deny"
	OperatorSnapshotSave = "snapshot-save"
	OperatorLicenseRead  = "license-read"
)

var operatorCapabilities = []string{OperatorDeny, OperatorSnapshotSave, OperatorLicenseRead}

func operatorPolicyCapabilities(policy string) []string {
	switch policy {
	case PolicyDeny:
		return []string{OperatorDeny}
	case PolicyRead:
		return []string{OperatorLicenseRead}
	case PolicyWrite:
		return []string{OperatorSnapshotSave, OperatorLicenseRead}
	}
	return nil
}

// Variables capabilities: what a namespace rule's variables path rule
// grants on the variables at the paths it matches.
const (
	VariablesDeny    = "deny"
	VariablesList    = "list"
	VariablesRead    = "read"
	VariablesWrite   = "write"
	VariablesDestroy = "destroy"
)

var variablesCapabilities = []string{VariablesList, VariablesRead, VariablesWrite, VariablesDestroy, VariablesDeny}

// impliedVariablesCapabilities: reading or writing a variable includes
// listing it, as in Nomad.
var impliedVariablesCapabilities = map[string][]string{
	VariablesRead:  {VariablesList},
	VariablesWrite: {VariablesList},
}

// variablesPolicyCapabilities is what a namespace rule's policy grants on
// every variable path of the namespace, as in Nomad: read reads and
// lists, write also writes and destroys.
func variablesPolicyCapabilities(policy string) []string {
	switch policy {
	case PolicyDeny:
		return []string{VariablesDeny}
	case PolicyRead:
		return []string{VariablesList, VariablesRead}
	case PolicyWrite:
		return []string{VariablesDestroy, VariablesList, VariablesRead, VariablesWrite}
	}
	return nil
}
