package client

import (
	"context"
	"fmt"
	"slices"

	"github.com/drover-io/drover/internal/template"
	"github.com/drover-io/drover/structs"
)

// ServiceReadConn is a ServerConn that can also read service
// registrations as the holder of a token (a task's workload identity),
// for nomadService and nomadServices. The agent's connections implement
// it.
type ServiceReadConn interface {
	ReadServices(ctx context.Context, req *structs.ServicesReadRequest) (*structs.ServicesReadResponse, error)
}

// ReadServices reads registrations as the task, with its workload
// identity.
func (v *taskVariables) ReadServices(ctx context.Context, q template.ServiceQuery) ([]template.Service, uint64, error) {
	conn, ok := v.c.conn.(ServiceReadConn)
	if !ok {
		return nil, 0, fmt.Errorf("this client's connection to the servers (%T) cannot read services", v.c.conn)
	}
	opts, err := v.query(ctx, template.VarQuery{MinIndex: q.MinIndex})
	if err != nil {
		return nil, 0, err
	}
	resp, err := conn.ReadServices(ctx, &structs.ServicesReadRequest{Namespace: q.Namespace, ServiceName: q.Name, QueryOptions: opts})
	if err != nil {
		v.failed()
		return nil, 0, err
	}
	out := make([]template.Service, 0, len(resp.Services))
	for _, r := range resp.Services {
		if r == nil {
			continue
		}
		out = append(out, template.Service{
			ID: r.ID, ServiceName: r.ServiceName, Namespace: r.Namespace, NodeID: r.NodeID,
			Datacenter: r.Datacenter, JobID: r.JobID, AllocID: r.AllocID,
			Tags: slices.Clone(r.Tags), Address: r.Address, Port: r.Port,
		})
	}
	return out, resp.Index, nil
}
