// Package jobcheck holds a submitted job to everything that can be known
// of it before a client runs it: the model's own rules, each task's config
// against its driver's schema, and the job limits of the server that takes
// it in. It is the one validation path: the server checks every job a
// register, a plan or an Apply brings in with it, once, on the server the
// request reaches; `drover job validate` and /v1/validate/job call it too.
//
// It reads the model (structs), the drivers' config schemas
// (drivers/configschema) and the template language (internal/template,
// whose Check refuses functions that need a Consul or Vault server); it must not import the server, the agent or a
// driver's implementation.
package jobcheck
