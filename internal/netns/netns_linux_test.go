package netns

import (
	"net"
	"os"
	"path/filepath"
	"testing"
)

func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("network namespace tests need root in CI")
		}
		t.Skip("network namespace tests need root")
	}
}

// A listener made in the namespace is reachable there on loopback, and
// not from the host's namespace; Remove leaves nothing pinned.
func TestCreateDoRemove(t *testing.T) {
	needRoot(t)
	path := filepath.Join(t.TempDir(), "ns")
	if err := Create(path); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = Remove(path) })
	if !Exists(path) {
		t.Fatal("namespace not pinned")
	}
	var ln net.Listener
	err := Do(path, func() error {
		var err error
		ln, err = net.Listen("tcp", "127.0.0.1:0")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	err = Do(path, func() error {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err
	})
	if err != nil {
		t.Fatalf("dial in the namespace: %v", err)
	}
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Fatalf("the host reached %s, which listens only in the namespace", addr)
	}
	if err := Remove(path); err != nil {
		t.Fatal(err)
	}
	if Exists(path) {
		t.Fatal("namespace still pinned")
	}
	if err := Do(path, func() error { return nil }); err == nil {
		t.Fatal("Do in a removed namespace succeeded")
	}
}

func TestCreateRefusesExisting(t *testing.T) {
	needRoot(t)
	path := filepath.Join(t.TempDir(), "ns")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Create(path); err == nil {
		t.Fatal("Create over an existing file succeeded")
	}
}
