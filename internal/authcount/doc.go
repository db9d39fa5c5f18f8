// Package authcount counts permission checks, in a test build only: built
// with the tag drover_authcount, Add counts and Total reports; otherwise
// Add does nothing and compiles away. The route test uses it to prove that
// each request to the HTTP API is checked exactly once, wherever the check
// is made (the HTTP layer for what only it serves, the server for the rest).
//
// It imports nothing of ours.
package authcount
