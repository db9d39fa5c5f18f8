// Package netguard owns the client's policy on where a fetch made on a job
// author's behalf (an artifact today; templates and other getters as they
// come) may connect: which classes of address (loopback, link-local, cloud
// metadata, unspecified, private, multicast) and which ranges are refused,
// and which ranges are let through all the same.
//
// The check is made on the address actually dialed, at connect time, by
// the dialer's Control function: after DNS resolution, on every redirect
// and on every address a name resolves to, so that a name that resolves
// one way when checked and another when dialed (DNS rebinding) gains
// nothing. Transport also keeps the failures of connections to internal
// addresses from telling a job author what answers on which port.
//
// Programs the client runs on a job author's behalf (git) connect on
// their own: Proxy is a loopback HTTP proxy, pointed at by them, that
// makes their connections under the same policy.
package netguard
