/*
Package cni gives an allocation a network namespace of its own and joins
it to a network through CNI plugins: the client's bridge network (mode
"bridge"), a network an operator configured in the client's CNI config
directory (mode "cni/<name>"), or none at all but loopback (mode "none").

A Manager is the client's, one per agent. For each allocation it

  - makes a network namespace pinned at <state dir>/netns/<alloc ID>, with
    its loopback up (internal/netns);
  - runs the network's plugins (libcni) with the allocation ID as the
    container ID, interface eth0, and the group's ports as the portmap
    plugin's portMappings, host port to the port's "to";
  - keeps the network configuration it ran next to the pin
    (<alloc ID>.conflist), and libcni's result cache in <state dir>/cache,
    so that a later agent tears down exactly what this one set up, even
    when the client's configuration changed in between.

Setup is idempotent for an allocation whose namespace is pinned and whose
result is cached: a restored allocation gets back the same namespace and
address. Teardown runs every plugin's DEL (removing the veth pair, the
address lease and the iptables chains the plugins made), then unpins the
namespace; it is idempotent too. Leftovers lists the allocations that
have a namespace here, for the client to tear down those it no longer
runs.

The bridge network is Nomad's: a Linux bridge (default name "drover",
where Nomad's is "nomad", so that the two never share or tear down each
other's bridge on one host) with host-local addresses from the client's
subnet (default 172.26.64.0/20, Nomad's), the firewall plugin (admin
chain DROVER-ADMIN, Nomad's NOMAD-ADMIN) and the portmap plugin with SNAT
so that the host reaches a mapped port on its own addresses, loopback
included.

It imports internal/netns, structs and libcni; the client and the alloc
runner's network hook use it, drivers never do (they get the namespace's
path).
*/
package cni
