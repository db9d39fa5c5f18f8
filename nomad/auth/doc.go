// Package auth is what a user's write needs of its caller, and the
// caller's identity as it travels with a request. The HTTP API puts the
// identity it resolved in the request's context (WithCaller); the server
// method that serves the write reads it (Caller) and makes the write's one
// check with the function here that names what the write needs.
//
// It imports the ACL model (acl), the job model (structs) and the error
// kinds (nomad/rpc); it must not import the server (nomad) or the agent.
package auth
