package taskrunner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/client/allocdir"
	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/internal/beneath"
	"github.com/drover-io/drover/structs"
)

// fakeSigner hands out tokens and records what it was asked.
type fakeSigner struct {
	mu    sync.Mutex
	asked []string
	err   error
}

func (f *fakeSigner) SignIdentity(_ context.Context, allocID, task string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, allocID+"/"+task)
	if f.err != nil {
		return "", f.err
	}
	return "eyJ.token-" + string(rune('0'+len(f.asked))) + ".sig", nil
}

func identityRequest(t *testing.T, id *structs.WorkloadIdentity) *prestartRequest {
	t.Helper()
	ad, err := allocdir.New(t.TempDir(), "alloc-1")
	must.NoError(t, err)
	must.NoError(t, ad.Build())
	td, err := ad.TaskDir("web")
	must.NoError(t, err)
	must.NoError(t, td.Build())
	return &prestartRequest{
		Task:    &structs.Task{Name: "web", Identity: id},
		TaskDir: td,
		Env:     &taskEnv{vars: map[string]string{}},
		Emit:    func(*structs.TaskEvent) {},
	}
}

func TestIdentityHook_envAndFile(t *testing.T) {
	signer := &fakeSigner{}
	h := &identityHook{signer: signer, allocID: "alloc-1"}
	req := identityRequest(t, &structs.WorkloadIdentity{Env: true, File: true})
	done, err := h.Prestart(t.Context(), req)
	must.NoError(t, err)
	must.False(t, done, must.Sprint("each run gets a fresh token"))
	must.Eq(t, "eyJ.token-1.sig", req.Env.Map()["NOMAD_TOKEN"])
	path := filepath.Join(req.TaskDir.SecretsDir, "nomad_token")
	data, err := os.ReadFile(path)
	must.NoError(t, err)
	must.Eq(t, "eyJ.token-1.sig", string(data))
	info, err := os.Stat(path)
	must.NoError(t, err)
	must.Eq(t, os.FileMode(0o600), info.Mode().Perm())

	// A restart gets a new token, replacing the file whole.
	_, err = h.Prestart(t.Context(), req)
	must.NoError(t, err)
	data, err = os.ReadFile(path)
	must.NoError(t, err)
	must.Eq(t, "eyJ.token-2.sig", string(data))
	entries, err := os.ReadDir(req.TaskDir.SecretsDir)
	must.NoError(t, err)
	must.Len(t, 1, entries, must.Sprint("no temporary file is left"))
	must.Eq(t, []string{"alloc-1/web", "alloc-1/web"}, signer.asked)
}

func TestIdentityHook_onlyWhatTheBlockAsks(t *testing.T) {
	for name, id := range map[string]*structs.WorkloadIdentity{
		"no block":  nil,
		"neither":   {TTL: 1},
		"env only":  {Env: true},
		"file only": {File: true},
	} {
		t.Run(name, func(t *testing.T) {
			signer := &fakeSigner{}
			req := identityRequest(t, id)
			_, err := (&identityHook{signer: signer, allocID: "alloc-1"}).Prestart(t.Context(), req)
			must.NoError(t, err)
			_, inEnv := req.Env.Map()["NOMAD_TOKEN"]
			_, statErr := os.Stat(filepath.Join(req.TaskDir.SecretsDir, "nomad_token"))
			must.Eq(t, id != nil && id.Env, inEnv)
			must.Eq(t, id != nil && id.File, statErr == nil)
			must.Eq(t, id.Exposed(), len(signer.asked) == 1, must.Sprint("the servers are asked only for a token the task gets"))
		})
	}
}

func TestIdentityHook_failures(t *testing.T) {
	req := identityRequest(t, &structs.WorkloadIdentity{Env: true})
	_, err := (&identityHook{signer: &fakeSigner{err: errors.New("no leader")}, allocID: "alloc-1"}).Prestart(t.Context(), req)
	must.ErrorContains(t, err, "get the task's workload identity: no leader")
	must.True(t, drivers.IsRecoverable(err), must.Sprint("the restart policy tries again"))

	_, err = (&identityHook{allocID: "alloc-1"}).Prestart(t.Context(), req)
	must.ErrorContains(t, err, "no way to ask the servers")
}

func (f *fakeSigner) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.asked)
}

// TestIdentityHook_renewsTheFileAtHalfItsTTL: a token with a ttl in the
// file is replaced at half its ttl for as long as the runner runs; the
// next run, and the runner's end, stop the renewals of the one before.
func TestIdentityHook_renewsTheFileAtHalfItsTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		signer := &fakeSigner{}
		done := make(chan struct{})
		h := &identityHook{signer: signer, allocID: "alloc-1", done: done}
		req := identityRequest(t, &structs.WorkloadIdentity{File: true, TTL: time.Hour})
		path := filepath.Join(req.TaskDir.SecretsDir, "nomad_token")
		_, err := h.Prestart(t.Context(), req)
		must.NoError(t, err)

		time.Sleep(29 * time.Minute)
		synctest.Wait()
		must.Eq(t, 1, signer.count())
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		must.Eq(t, 2, signer.count())
		data, err := os.ReadFile(path)
		must.NoError(t, err)
		must.Eq(t, "eyJ.token-2.sig", string(data))
		time.Sleep(30 * time.Minute)
		synctest.Wait()
		must.Eq(t, 3, signer.count())

		// A new run takes over: one renewal chain, not two.
		_, err = h.Prestart(t.Context(), req)
		must.NoError(t, err)
		must.Eq(t, 4, signer.count())
		time.Sleep(31 * time.Minute)
		synctest.Wait()
		must.Eq(t, 5, signer.count())

		// A failed renewal is tried again sooner.
		signer.mu.Lock()
		signer.err = errors.New("no leader")
		signer.mu.Unlock()
		time.Sleep(30 * time.Minute)
		synctest.Wait()
		must.Eq(t, 6, signer.count())
		time.Sleep(6*time.Minute + time.Second)
		synctest.Wait()
		must.Eq(t, 7, signer.count())

		// Once the runner is done, renewals stop.
		close(done)
		time.Sleep(10 * time.Hour)
		synctest.Wait()
		must.Eq(t, 7, signer.count(), must.Sprint("the renewal pending at the end sees the runner done and asks for nothing"))
	})
}

// TestIdentityHook_secretsLinkedOut: a task (or its sibling, through the
// allocation directory) replaced secrets/ with a link to a directory of
// the machine. The token must not be written there.
func TestIdentityHook_secretsLinkedOut(t *testing.T) {
	host := t.TempDir()
	req := identityRequest(t, &structs.WorkloadIdentity{File: true})
	must.NoError(t, os.RemoveAll(req.TaskDir.SecretsDir))
	must.NoError(t, os.Symlink(host, req.TaskDir.SecretsDir))

	_, err := (&identityHook{signer: &fakeSigner{}, allocID: "alloc-1"}).Prestart(t.Context(), req)
	must.ErrorIs(t, err, beneath.ErrSymlink)
	entries, err := os.ReadDir(host)
	must.NoError(t, err)
	must.SliceEmpty(t, entries, must.Sprint("nothing may be written through the link"))
}
