package e2e

import (
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// browserNet is a network namespace of the test's own for the browser:
// only a loopback interface, with a port on it that forwards to the agent.
//
// Chromium abandons its loads and requests (ERR_NETWORK_CHANGED) whenever
// the machine's interfaces change, and they change many times a second
// while other tests start Docker containers. In a namespace of its own the
// browser sees no such change.
type browserNet struct {
	// nsPath names the namespace, for nsenter.
	nsPath string
	// origin is the forwarding port's URL, http://127.0.0.1:N, which the
	// browser loads the agent's pages from.
	origin string
}

// isolateBrowser makes a namespace that forwards to target (host:port in
// the test's own namespace) until the test ends. It needs root, as the CI
// runs; elsewhere it returns an error and the browser shares the machine's
// network.
func isolateBrowser(t *testing.T, target string) (*browserNet, error) {
	t.Helper()
	type made struct {
		nsPath string
		ln     net.Listener
		err    error
	}
	ch := make(chan made, 1)
	done := make(chan struct{})
	go func() {
		// The thread enters the new namespace and is never unlocked:
		// when this goroutine returns the runtime ends the thread, and
		// no other goroutine runs in the namespace meanwhile.
		runtime.LockOSThread()
		if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
			ch <- made{err: fmt.Errorf("unshare the network namespace: %w", err)}
			return
		}
		if err := loopbackUp(); err != nil {
			ch <- made{err: err}
			return
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		ch <- made{nsPath: fmt.Sprintf("/proc/%d/task/%d/ns/net", os.Getpid(), unix.Gettid()), ln: ln, err: err}
		<-done // the namespace's path lives as long as this thread
	}()
	m := <-ch
	if m.err != nil {
		close(done)
		return nil, m.err
	}
	t.Cleanup(func() {
		m.ln.Close()
		close(done)
	})
	go forward(m.ln, target)
	return &browserNet{nsPath: m.nsPath, origin: "http://" + m.ln.Addr().String()}, nil
}

// loopbackUp brings up lo in the calling thread's network namespace.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("socket for lo: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("read lo's flags: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bring lo up: %w", err)
	}
	return nil
}

// forward copies every connection ln accepts to a connection to target,
// both ways, until ln closes; a copy ends when either side closes. The
// dial runs outside the namespace: only the locked thread is in it.
func forward(ln net.Listener, target string) {
	for {
		in, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer in.Close()
			out, err := net.Dial("tcp", target)
			if err != nil {
				return
			}
			defer out.Close()
			go func() {
				io.Copy(out, in)
				out.(*net.TCPConn).CloseWrite()
			}()
			io.Copy(in, out)
		}()
	}
}

// browserLauncher writes a script that starts path in the namespace, for
// chromedp.ExecPath.
func (n *browserNet) browserLauncher(t *testing.T, path string) string {
	t.Helper()
	script := filepath.Join(t.TempDir(), "chromium-in-netns")
	body := fmt.Sprintf("#!/bin/sh\nexec nsenter --net=%s -- %s \"$@\"\n", n.nsPath, path)
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatalf("write browser launcher: %v", err)
	}
	return script
}
