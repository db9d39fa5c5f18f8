package netns

import "fmt"

// deadMAC is the link address a cut link's packets are sent to: a locally
// administered unicast address no veth has. The bridge floods them, and
// every host drops them as not its own.
const deadMAC = "02:00:00:de:ad:01"

// Cut drops every packet from sends to receiver, silently, as a broken
// link does: the sender's connections to receiver see no answer and time
// out. Packets from receiver still reach sender; cut both ways for a full
// partition. It points sender's neighbour entry for receiver's address at
// deadMAC, permanently, which no ARP answer overrides.
func (n *Net) Cut(sender, receiver *Host) {
	n.t.Helper()
	n.mu.Lock()
	defer n.mu.Unlock()
	n.must(ip("-n", sender.ns, "neigh", "replace", receiver.IP.String(),
		"lladdr", deadMAC, "dev", hostLink, "nud", "permanent"))
	n.cuts[[2]*Host{sender, receiver}] = true
}

// Heal undoes Cut(sender, receiver): the neighbour entry is removed, and
// the next packet asks for receiver's link address again.
func (n *Net) Heal(sender, receiver *Host) {
	n.t.Helper()
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := n.heal(sender, receiver); err != nil {
		n.t.Fatal(err)
	}
}

// HealAll heals every cut link.
func (n *Net) HealAll() {
	n.t.Helper()
	n.mu.Lock()
	defer n.mu.Unlock()
	for link := range n.cuts {
		if err := n.heal(link[0], link[1]); err != nil {
			n.t.Fatal(err)
		}
	}
}

// heal removes the cut from sender to receiver; n.mu is held.
func (n *Net) heal(sender, receiver *Host) error {
	if !n.cuts[[2]*Host{sender, receiver}] {
		return fmt.Errorf("heal the link from %s to %s: it is not cut", sender.Name, receiver.Name)
	}
	if err := ip("-n", sender.ns, "neigh", "del", receiver.IP.String(), "dev", hostLink); err != nil {
		return fmt.Errorf("heal the link from %s to %s: %w", sender.Name, receiver.Name, err)
	}
	delete(n.cuts, [2]*Host{sender, receiver})
	return nil
}
