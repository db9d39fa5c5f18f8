package client

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/drover-io/drover/client/fingerprint"
	"github.com/drover-io/drover/structs"
)

// The files in the state dir that keep the node's ID and secret ID, so
// that a restarted client is the same node, and can prove it.
const (
	nodeIDFile   = "node-id"
	secretIDFile = "secret-id"
)

// driverFingerprintTimeout bounds the drivers' fingerprinting at start.
const driverFingerprintTimeout = 10 * time.Second

// loadNodeIdentity returns the node's ID (the forced one, the one kept in
// stateDir, or a new one) and its secret ID (the one kept in stateDir, or
// a new one). New ones are kept in stateDir when there is one.
func loadNodeIdentity(forced, stateDir string) (NodeIdentity, error) {
	var id NodeIdentity
	var err error
	if forced != "" {
		id.ID = forced
	} else if id.ID, err = loadOrCreate(stateDir, nodeIDFile); err != nil {
		return NodeIdentity{}, fmt.Errorf("node ID: %w", err)
	}
	if id.SecretID, err = loadOrCreate(stateDir, secretIDFile); err != nil {
		return NodeIdentity{}, fmt.Errorf("node secret ID: %w", err)
	}
	return id, nil
}

// loadOrCreate returns the UUID kept in the named file of stateDir, or a
// new one, written there (readable by the agent's user only) when there is
// a state dir.
func loadOrCreate(stateDir, name string) (string, error) {
	if stateDir == "" {
		return structs.GenerateUUID(), nil
	}
	path := filepath.Join(stateDir, name)
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		v := strings.TrimSpace(string(data))
		if v == "" || strings.ContainsAny(v, " \t\n/") {
			return "", fmt.Errorf("%s holds %q, which is not an ID", path, v)
		}
		return v, nil
	case !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	v := structs.GenerateUUID()
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return "", fmt.Errorf("create client state dir: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(v+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return v, nil
}

// buildNode fingerprints the machine and the drivers and describes the
// node to register.
func (c *Client) buildNode(id NodeIdentity) (*structs.Node, error) {
	cfg := c.config
	res, err := fingerprint.LocalHost(c.logger.Named("fingerprint"), cfg.AllocDir).Fingerprint()
	if err != nil {
		return nil, err
	}
	hostNet, err := hostNetwork(cfg.Network.Interface, cfg.HTTPAddr)
	if err != nil {
		return nil, err
	}
	res.Resources.Networks = append([]*structs.NetworkResource{hostNet}, c.networkModes()...)
	res.Resources.MinDynamicPort = cmp.Or(cfg.Network.MinDynamicPort, structs.DefaultMinDynamicPort)
	res.Resources.MaxDynamicPort = cmp.Or(cfg.Network.MaxDynamicPort, structs.DefaultMaxDynamicPort)
	reserved := cfg.Network.Reserved
	node := &structs.Node{
		ID:                    id.ID,
		SecretID:              id.SecretID,
		Datacenter:            cfg.Datacenter,
		Name:                  cfg.NodeName,
		HTTPAddr:              cfg.HTTPAddr,
		TLSEnabled:            cfg.HTTPS,
		Attributes:            res.Attributes,
		NodeResources:         res.Resources,
		ReservedResources:     &reserved,
		Meta:                  maps.Clone(cfg.Meta),
		NodeClass:             cfg.NodeClass,
		NodePool:              cfg.NodePool,
		SchedulingEligibility: structs.NodeSchedulingEligible,
		Status:                structs.NodeStatusReady,
		Drivers:               map[string]*structs.DriverInfo{},
		HostVolumes:           hostVolumes(cfg.HostVolumes),
	}
	if node.Meta == nil {
		node.Meta = map[string]string{}
	}

	ctx, cancel := context.WithTimeout(context.Background(), driverFingerprintTimeout)
	defer cancel()
	now := time.Now().UTC()
	for name, fp := range cfg.Drivers.Fingerprint(ctx) {
		if fp == nil {
			continue
		}
		node.Drivers[name] = &structs.DriverInfo{
			Attributes:        maps.Clone(fp.Attributes),
			Detected:          fp.Detected,
			Healthy:           fp.Healthy,
			HealthDescription: fp.HealthDescription,
			UpdateTime:        now,
		}
		if fp.Detected {
			maps.Copy(node.Attributes, fp.Attributes)
		}
	}
	return node, nil
}
