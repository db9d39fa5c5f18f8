// Package jobspec2 parses Nomad-style HCL2 job specifications into api.Job
// values.
//
// A jobspec holds exactly one job block and, around it, variable, variables
// and locals blocks. Expressions are evaluated at parse time only where they
// refer to input variables (var.*), locals (local.*) and functions; every
// other reference, such as ${attr.kernel.name}, ${node.datacenter} or
// ${NOMAD_ALLOC_ID}, is kept as "${...}" text so that the scheduler and the
// client can interpolate it later.
package jobspec2
