//go:build linux || darwin || freebsd || netbsd || openbsd

package rpc

import (
	"errors"
	"net"
	"syscall"
)

// peerClosed reports whether the peer has closed conn or reset it, without
// consuming anything from it. A pooled connection to a server that has
// since shut down looks like this; a call sent on it would fail after the
// fact and leave the caller unsure whether it ran.
func peerClosed(conn net.Conn) bool {
	// A TLS connection is probed on the TCP connection under it.
	if tc, ok := conn.(interface{ NetConn() net.Conn }); ok {
		conn = tc.NetConn()
	}
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	closed := false
	// Control, unlike Read, does not wait for the read lock held by the
	// RPC client's reader goroutine.
	cerr := raw.Control(func(fd uintptr) {
		var buf [1]byte
		n, _, err := syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		switch {
		case err == nil:
			closed = n == 0 // an orderly shutdown reads as zero bytes
		case errors.Is(err, syscall.EAGAIN), errors.Is(err, syscall.EWOULDBLOCK), errors.Is(err, syscall.EINTR):
		default:
			closed = true
		}
	})
	return closed || cerr != nil
}
