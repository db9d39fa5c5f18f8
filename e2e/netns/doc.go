// Package netns gives a test a network of its own: a bridge in a network
// namespace of its own, and hosts attached to it, each a namespace with
// only lo and one veth on the bridge, at an address the test chooses. It
// cuts the link from one host to another (one way, or both ways with two
// cuts) and heals it, and dials into a host from the test process. Every
// namespace it makes, and with them every veth and the bridge, is removed
// when the test ends; nothing is added to the test's own namespace.
//
// The hosts' addresses exist only inside the network. The test process
// reaches them through Host's dialer: dialled from the test's own
// namespace, they would follow its default route off the machine.
//
// It needs root and iproute2 (ip) and util-linux (nsenter). Require says
// what a test does where it cannot have them: it is skipped, except in CI,
// which runs as root and where it fails.
package netns
