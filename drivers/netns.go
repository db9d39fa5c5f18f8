package drivers

// NetNSJoiner is implemented by drivers that start a task in the network
// namespace its TaskConfig names (NetNSPath). The task runner refuses to
// start a task of a group with a network namespace on a driver that does
// not, rather than let it run on the host's network.
type NetNSJoiner interface {
	JoinsNetNS() bool
}
