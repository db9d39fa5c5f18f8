package netns

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// DialContext connects to addr from inside the host's namespace, as a
// process there would. The connection, once made, is used from anywhere
// in the test process.
func (h *Host) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	var conn net.Conn
	err := h.run(func() error {
		var d net.Dialer
		var err error
		conn, err = d.DialContext(ctx, network, addr)
		return err
	})
	return conn, err
}

// Listen listens on addr (TCP) inside the host's namespace.
func (h *Host) Listen(addr string) (net.Listener, error) {
	var ln net.Listener
	err := h.run(func() error {
		var err error
		ln, err = net.Listen("tcp", addr)
		return err
	})
	return ln, err
}

// ListenPacket listens on addr (UDP) inside the host's namespace.
func (h *Host) ListenPacket(addr string) (net.PacketConn, error) {
	var pc net.PacketConn
	err := h.run(func() error {
		var err error
		pc, err = net.ListenPacket("udp", addr)
		return err
	})
	return pc, err
}

// run calls fn on an OS thread that is in the host's namespace while fn
// runs: the sockets fn makes belong to that namespace. The thread goes
// back to the test's own namespace afterwards; if it cannot, it stays
// locked and ends with its goroutine, so that no other goroutine ever runs
// in the host's.
func (h *Host) run(fn func() error) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		own, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			done <- fmt.Errorf("host %s: open the thread's own namespace: %w", h.Name, err)
			return
		}
		defer own.Close()
		if err := unix.Setns(int(h.file.Fd()), unix.CLONE_NEWNET); err != nil {
			done <- fmt.Errorf("host %s: enter its namespace: %w", h.Name, err)
			return
		}
		err = fn()
		if unix.Setns(int(own.Fd()), unix.CLONE_NEWNET) == nil {
			runtime.UnlockOSThread()
		}
		done <- err
	}()
	return <-done
}

// HTTPClient returns a client whose connections are made from the host's
// namespace, and are closed when the test ends. Each request, its answer
// read in full, takes at most timeout.
func (h *Host) HTTPClient(timeout time.Duration) *http.Client {
	h.transportOnce.Do(func() {
		h.transport = &http.Transport{
			DialContext:         h.DialContext,
			MaxIdleConnsPerHost: 16,
			IdleConnTimeout:     30 * time.Second,
		}
	})
	return &http.Client{Transport: h.transport, Timeout: timeout}
}
