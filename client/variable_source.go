package client

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/drover-io/drover/internal/template"
	"github.com/drover-io/drover/structs"
)

// VariableServerConn is a ServerConn that can also read Nomad variables
// as the holder of a token (a task's workload identity), for the
// templates of the client's tasks. The agent's connections implement it.
type VariableServerConn interface {
	ReadVariable(ctx context.Context, req *structs.VariablesReadRequest) (*structs.VariablesReadResponse, error)
	ListVariables(ctx context.Context, req *structs.VariablesListRequest) (*structs.VariablesListResponse, error)
}

// variableQueryWait is how long one blocking read of a template's watch
// waits on the servers before it asks again.
const variableQueryWait = 5 * time.Minute

// variableSources serves each task's templates the variables its workload
// identity may read.
type variableSources struct{ c *Client }

func (s variableSources) ForTask(alloc *structs.Allocation, task string) template.VariableSource {
	return &taskVariables{c: s.c, allocID: alloc.ID, task: task}
}

// taskVariables reads variables as one task: with a workload identity
// the servers sign for it, kept until a read fails (it may have expired,
// or the keyring rotated), then signed afresh.
type taskVariables struct {
	c       *Client
	allocID string
	task    string

	mu    sync.Mutex
	token string
}

func (v *taskVariables) conn() (VariableServerConn, error) {
	conn, ok := v.c.conn.(VariableServerConn)
	if !ok {
		return nil, fmt.Errorf("this client's connection to the servers (%T) cannot read variables", v.c.conn)
	}
	return conn, nil
}

// query is the RPC options of q, with the task's token.
func (v *taskVariables) query(ctx context.Context, q template.VarQuery) (structs.QueryOptions, error) {
	v.mu.Lock()
	token := v.token
	v.mu.Unlock()
	if token == "" {
		var err error
		if token, err = (identitySigner{v.c}).SignIdentity(ctx, v.allocID, v.task); err != nil {
			return structs.QueryOptions{}, err
		}
		v.mu.Lock()
		v.token = token
		v.mu.Unlock()
	}
	opts := structs.QueryOptions{AuthToken: token, MinQueryIndex: q.MinIndex, AllowStale: true}
	if q.MinIndex > 0 {
		opts.MaxQueryTime = variableQueryWait
	}
	return opts, nil
}

// failed drops the token after a failed read: the next read signs anew.
func (v *taskVariables) failed() {
	v.mu.Lock()
	v.token = ""
	v.mu.Unlock()
}

func (v *taskVariables) ReadVariable(ctx context.Context, q template.VarQuery) (*template.Variable, uint64, error) {
	conn, err := v.conn()
	if err != nil {
		return nil, 0, err
	}
	opts, err := v.query(ctx, q)
	if err != nil {
		return nil, 0, err
	}
	resp, err := conn.ReadVariable(ctx, &structs.VariablesReadRequest{Path: q.Path, Namespace: q.Namespace, QueryOptions: opts})
	if err != nil {
		v.failed()
		return nil, 0, err
	}
	if resp.Data == nil {
		return nil, resp.Index, nil
	}
	return &template.Variable{
		VariableMeta: variableMeta(&resp.Data.VariableMetadata),
		Items:        maps.Clone(map[string]string(resp.Data.Items)),
	}, resp.Index, nil
}

func (v *taskVariables) ListVariables(ctx context.Context, q template.VarQuery) ([]template.VariableMeta, uint64, error) {
	conn, err := v.conn()
	if err != nil {
		return nil, 0, err
	}
	opts, err := v.query(ctx, q)
	if err != nil {
		return nil, 0, err
	}
	resp, err := conn.ListVariables(ctx, &structs.VariablesListRequest{Prefix: q.Path, Namespace: q.Namespace, QueryOptions: opts})
	if err != nil {
		v.failed()
		return nil, 0, err
	}
	out := make([]template.VariableMeta, 0, len(resp.Data))
	for _, m := range resp.Data {
		if m != nil {
			out = append(out, variableMeta(m))
		}
	}
	return out, resp.Index, nil
}

func variableMeta(m *structs.VariableMetadata) template.VariableMeta {
	return template.VariableMeta{
		Namespace: m.Namespace, Path: m.Path,
		CreateIndex: m.CreateIndex, ModifyIndex: m.ModifyIndex,
		CreateTime: m.CreateTime, ModifyTime: m.ModifyTime,
	}
}
