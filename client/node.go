package client

import (
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

// nodeIDFile is the file in the state dir that keeps the node's ID, so that
// a restarted client is the same node.
const nodeIDFile = "node-id"

// driverFingerprintTimeout bounds the drivers' fingerprinting at start.
const driverFingerprintTimeout = 10 * time.Second

// loadNodeID returns the node ID: the forced one, the one kept in
// stateDir, or a new one (kept there when there is a state dir).
func loadNodeID(forced, stateDir string) (string, error) {
	if forced != "" {
		return forced, nil
	}
	if stateDir == "" {
		return structs.GenerateUUID(), nil
	}
	path := filepath.Join(stateDir, nodeIDFile)
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		id := strings.TrimSpace(string(data))
		if id == "" || strings.ContainsAny(id, " \t\n/") {
			return "", fmt.Errorf("node ID file %s holds %q, which is not a node ID", path, id)
		}
		return id, nil
	case !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("read node ID: %w", err)
	}
	id := structs.GenerateUUID()
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return "", fmt.Errorf("create client state dir: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(id+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write node ID: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", fmt.Errorf("write node ID: %w", err)
	}
	return id, nil
}

// buildNode fingerprints the machine and the drivers and describes the
// node to register.
func (c *Client) buildNode(id string) (*structs.Node, error) {
	cfg := c.config
	res, err := fingerprint.LocalHost(c.logger.Named("fingerprint"), cfg.AllocDir).Fingerprint()
	if err != nil {
		return nil, err
	}
	node := &structs.Node{
		ID:                    id,
		Datacenter:            cfg.Datacenter,
		Name:                  cfg.NodeName,
		HTTPAddr:              cfg.HTTPAddr,
		TLSEnabled:            cfg.HTTPS,
		Attributes:            res.Attributes,
		NodeResources:         res.Resources,
		ReservedResources:     &structs.NodeReservedResources{},
		Meta:                  maps.Clone(cfg.Meta),
		NodeClass:             cfg.NodeClass,
		NodePool:              cfg.NodePool,
		SchedulingEligibility: structs.NodeSchedulingEligible,
		Status:                structs.NodeStatusReady,
		Drivers:               map[string]*structs.DriverInfo{},
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
