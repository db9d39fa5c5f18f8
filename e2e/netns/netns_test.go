package netns

import (
	"context"
	"errors"
	"io"
	"net"
	"net/netip"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/waitfor"
)

var testPrefix = netip.MustParsePrefix("198.18.0.0/24")

// pair is two hosts, a and b, on a network, with an echo server on b.
func pair(t *testing.T) (n *Net, a, b *Host, echo string) {
	n = New(t, testPrefix)
	a = n.AddHost("a", netip.MustParseAddr("198.18.0.1"))
	b = n.AddHost("b", netip.MustParseAddr("198.18.0.2"))
	ln, err := b.Listen("198.18.0.2:7")
	must.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				io.Copy(c, c)
			}()
		}
	}()
	return n, a, b, ln.Addr().String()
}

// roundTrip sends a line from host from to the echo server and waits for
// it back, for at most within.
func roundTrip(from *Host, echo string, within time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	c, err := from.DialContext(ctx, "tcp", echo)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(within))
	if _, err := c.Write([]byte("ping\n")); err != nil {
		return err
	}
	buf := make([]byte, 5)
	_, err = io.ReadFull(c, buf)
	return err
}

// timedOut reports whether err is a dial or read that got no answer, as
// opposed to a refusal or an unreachable host.
func timedOut(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded)
}

func TestHost_dialsIntoItsNamespace(t *testing.T) {
	_, a, _, echo := pair(t)
	must.NoError(t, roundTrip(a, echo, 10*time.Second))
}

func TestCut_dropsPacketsSilentlyUntilHealed(t *testing.T) {
	n, a, b, echo := pair(t)
	must.NoError(t, roundTrip(a, echo, 10*time.Second))

	n.Cut(a, b)
	err := roundTrip(a, echo, 2*time.Second)
	must.True(t, timedOut(err), must.Sprintf("a cut link must time out, not fail at once: %v", err))

	n.Heal(a, b)
	must.NoError(t, roundTrip(a, echo, 10*time.Second))
}

// TestCut_isOneWay sends datagrams both ways across a link cut one way:
// those from the receiver's side arrive, those from the cut sender do not.
func TestCut_isOneWay(t *testing.T) {
	n, a, b, _ := pair(t)
	inA, err := a.ListenPacket("198.18.0.1:9")
	must.NoError(t, err)
	defer inA.Close()
	inB, err := b.ListenPacket("198.18.0.2:9")
	must.NoError(t, err)
	defer inB.Close()

	n.Cut(a, b)
	send(t, a, "198.18.0.2:9", "lost")
	send(t, b, "198.18.0.1:9", "from b")
	must.Eq(t, "from b", receive(t, inA))

	n.HealAll()
	send(t, a, "198.18.0.2:9", "healed")
	// Datagrams on a bridge arrive in order: "lost" would come first.
	must.Eq(t, "healed", receive(t, inB))
}

// send sends msg in a datagram from host from to addr.
func send(t *testing.T, from *Host, addr, msg string) {
	t.Helper()
	c, err := from.DialContext(context.Background(), "udp", addr)
	must.NoError(t, err)
	defer c.Close()
	_, err = c.Write([]byte(msg))
	must.NoError(t, err)
}

// receive waits up to 10 s for a datagram on pc and returns it.
func receive(t *testing.T, pc net.PacketConn) string {
	t.Helper()
	pc.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 64)
	k, _, err := pc.ReadFrom(buf)
	must.NoError(t, err)
	return string(buf[:k])
}

// TestNew_removesEverythingWhenTheTestEnds checks that a test's network
// leaves no namespace behind.
func TestNew_removesEverythingWhenTheTestEnds(t *testing.T) {
	var made []string
	t.Run("network", func(t *testing.T) {
		n, a, b, _ := pair(t)
		made = []string{n.bridge, a.ns, b.ns}
		must.SliceContainsAll(t, namespaces(t), made)
	})
	for _, ns := range namespaces(t) {
		must.SliceNotContains(t, made, ns)
	}
}

// TestNew_removesAbandonedNamespaces checks that a namespace named as a
// process that no longer runs would name it is removed, with the process
// left in it, and that one of a running process is not.
func TestNew_removesAbandonedNamespaces(t *testing.T) {
	Require(t)
	// PIDs never reach the kernel's limit of 2^22.
	abandoned := namePrefix + "4194399-1-x"
	mine := namePrefix + "1-1-x" // init always runs
	for _, ns := range []string{abandoned, mine} {
		must.NoError(t, ip("netns", "add", ns))
	}
	t.Cleanup(func() {
		ip("netns", "delete", mine)
		ip("netns", "delete", abandoned) // if the test failed
	})
	left := exec.Command("nsenter", "--net=/run/netns/"+abandoned, "--", "sleep", "1000")
	must.NoError(t, left.Start())
	exited := make(chan error, 1)
	go func() { exited <- left.Wait() }()
	t.Cleanup(func() { left.Process.Kill() })

	New(t, testPrefix)
	list := namespaces(t)
	must.SliceNotContains(t, list, abandoned)
	must.SliceContains(t, list, mine)
	var err error
	waitfor.True(t, "the process left in the abandoned namespace to be killed", func() bool {
		select {
		case err = <-exited:
			return true
		default:
			return false
		}
	})
	must.ErrorContains(t, err, "killed")
}

func TestMaker(t *testing.T) {
	for name, want := range map[string]int{
		"drvnet123-4-s0": 123,
		"drvnet123-4-br": 123,
		"drvnet123":      0,
		"drvnetx-1-s0":   0,
		"other123-1-s0":  0,
		"drvnet0-1-a":    0,
	} {
		pid, ok := maker(name)
		must.Eq(t, want, pid, must.Sprint(name))
		must.Eq(t, want != 0, ok, must.Sprint(name))
	}
}

// namespaces lists the names of the machine's named network namespaces.
func namespaces(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("ip", "netns", "list").Output()
	must.NoError(t, err)
	var names []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			names = append(names, f[0])
		}
	}
	return names
}
