// Package jobspec2 parses Nomad-style HCL2 job specifications into api.Job
// values.
//
// A jobspec holds exactly one job block and, around it, variable, variables
// and locals blocks. Expressions are evaluated at parse time only where they
// refer to input variables (var.*), locals (local.*) and functions; every
// other reference, such as ${attr.kernel.name}, ${node.datacenter} or
// ${NOMAD_ALLOC_ID}, is kept as "${...}" text so that the scheduler and the
// client can interpolate it later.
//
// Nomad's HCL2 extensions are the parser's too: its functions (functions.go,
// the file functions only where the caller allows them), dynamic blocks,
// expanded in the syntax tree before a body is decoded (dynamic.go), and a
// task written directly in the job, which becomes a group of its own.
package jobspec2
