package taskrunner

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strconv"

	"github.com/drover-io/drover/client/allocdir"
	"github.com/drover-io/drover/internal/netguard"
	"github.com/drover-io/drover/structs"
)

// fetchArtifact downloads one artifact over HTTP(S) to its destination,
// verifies its checksum, and unpacks it, within limits, when it is an
// archive. The destination is relative to the task directory and may
// reach the rest of the allocation directory (../alloc/data); nothing is
// ever written outside the allocation directory.
func fetchArtifact(ctx context.Context, clients *artifactClients, art *structs.TaskArtifact, env *taskEnv, dir *allocdir.TaskDir, limits *ArtifactConfig) error {
	src, err := artifactURL(env.replace(art.GetterSource))
	if err != nil {
		return err
	}
	opts := make(map[string]string, len(art.GetterOptions))
	for k, v := range art.GetterOptions {
		opts[k] = env.replace(v)
	}
	sum, err := parseChecksum(opts[structs.ArtifactOptionChecksum])
	if err != nil {
		return err
	}
	kind, err := archiveKindOf(src.Path, opts[structs.ArtifactOptionArchive])
	if err != nil {
		return err
	}
	dest, err := artifactDest(art, env)
	if err != nil {
		return err
	}
	// From here on dest is relative to the allocation directory.
	if dest, err = dir.Resolve(dest); err != nil {
		return fmt.Errorf("destination: %w", err)
	}

	headers := make(map[string]string, len(art.GetterHeaders))
	for k, v := range art.GetterHeaders {
		headers[k] = env.replace(v)
	}
	tmp, err := download(ctx, clients.pick(art.GetterInsecure), src, headers, dir)
	if err != nil {
		return err
	}
	defer tmp.Close()
	if sum != nil {
		if err := sum.verify(tmp); err != nil {
			return err
		}
	}

	root, err := os.OpenRoot(dir.AllocDir)
	if err != nil {
		return fmt.Errorf("open allocation directory: %w", err)
	}
	defer root.Close()

	mode := art.GetterMode
	if mode == "" {
		mode = structs.ArtifactModeAny
	}
	switch {
	case mode == structs.ArtifactModeFile:
		return placeFile(root, tmp, dest)
	case kind != archiveNone:
		return unpackInto(root, dest, tmp, kind, limits)
	case mode == structs.ArtifactModeDir:
		return fmt.Errorf("mode %q needs an archive to unpack, and %s is not one", mode, path.Base(src.Path))
	default:
		return placeFile(root, tmp, filepath.Join(dest, path.Base(src.Path)))
	}
}

// artifactURL parses source, an interpolated artifact source, and accepts
// only what structs.CheckArtifactSource does: http and https URLs naming
// a file.
func artifactURL(source string) (*url.URL, error) {
	if err := structs.CheckArtifactSource(source); err != nil {
		return nil, fmt.Errorf("source %q: %w", source, err)
	}
	u, err := url.Parse(source)
	if err != nil {
		return nil, fmt.Errorf("invalid source: %w", err)
	}
	return u, nil
}

// artifactDest is the artifact's interpolated destination, relative to the
// task directory (it may climb into the rest of the allocation directory).
func artifactDest(art *structs.TaskArtifact, env *taskEnv) (string, error) {
	dest := env.replace(art.RelativeDest)
	if dest == "" {
		dest = structs.DefaultArtifactDest
	}
	if filepath.IsAbs(dest) {
		return "", fmt.Errorf("destination %q must be relative to the task directory", dest)
	}
	return filepath.Clean(dest), nil
}

// download fetches src, sending the given headers, into a new temporary
// file in the task directory, and returns it open. The file has no name:
// it is removed as soon as it is made, so that nothing a task does to
// the directory meanwhile can reach it. The request is abandoned as soon
// as ctx is done.
func download(ctx context.Context, client *http.Client, src *url.URL, headers map[string]string, dir *allocdir.TaskDir) (*os.File, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, src.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, requestError(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fmt.Errorf("download: server answered %s", resp.Status)
	}

	f, err := unnamedFile(dir)
	if err != nil {
		return nil, fmt.Errorf("create download file: %w", err)
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return nil, fmt.Errorf("download: %w", err)
	}
	return f, nil
}

// unnamedFile makes a file in the task directory, beneath the allocation
// directory (see package beneath), and removes its name.
func unnamedFile(dir *allocdir.TaskDir) (*os.File, error) {
	td, err := dir.Open("")
	if err != nil {
		return nil, err
	}
	defer td.Close()
	f, name, err := td.CreateTemp(".artifact-*")
	if err != nil {
		return nil, err
	}
	if err := td.Remove(name); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// artifactClients fetch artifacts under the client's address policy:
// one verifies the servers' certificates, the other is for artifacts
// marked insecure. Proxies are the agent's environment's (HTTP_PROXY,
// HTTPS_PROXY, NO_PROXY).
type artifactClients struct {
	verified, insecure *http.Client
}

func newArtifactClients(p *netguard.Policy) *artifactClients {
	return &artifactClients{
		verified: &http.Client{Transport: p.Transport(nil, http.ProxyFromEnvironment)},
		insecure: &http.Client{Transport: p.Transport(&tls.Config{InsecureSkipVerify: true}, http.ProxyFromEnvironment)},
	}
}

func (c *artifactClients) pick(insecure bool) *http.Client {
	if insecure {
		return c.insecure
	}
	return c.verified
}

// closeIdle closes the connections kept for the next artifact, once
// there is none.
func (c *artifactClients) closeIdle() {
	c.verified.CloseIdleConnections()
	c.insecure.CloseIdleConnections()
}

// requestError is the error of a request that got no answer. A refusal
// by the address policy names the setting that refused it.
func requestError(err error) error {
	if refused := (*netguard.RefusedError)(nil); errors.As(err, &refused) {
		return fmt.Errorf("download: %w (the client's artifact address_denylist)", refused)
	}
	if unreachable := (*netguard.UnreachableError)(nil); errors.As(err, &unreachable) {
		return fmt.Errorf("download: %w", unreachable)
	}
	return fmt.Errorf("download: %w", err)
}

// placeFile copies the download to dest, relative to root: into a new
// file beside it, then renamed over it. Whatever a task left at dest (a
// named pipe, a device, a link) is replaced, never opened.
func placeFile(root *os.Root, download *os.File, dest string) error {
	if !filepath.IsLocal(dest) {
		return fmt.Errorf("destination %q: %w", dest, allocdir.ErrOutsideDir)
	}
	if err := root.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return fmt.Errorf("create destination: %w", err)
	}
	if _, err := download.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("read download: %w", err)
	}
	dst, name, err := createTemp(root, filepath.Dir(dest))
	if err != nil {
		return fmt.Errorf("create %s: %w", dest, err)
	}
	_, err = io.Copy(dst, download)
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(name, dest)
	}
	if err != nil {
		_ = root.Remove(name)
		return fmt.Errorf("write %s: %w", dest, err)
	}
	return nil
}

// createTemp makes a new file in dir, relative to root, and returns it
// and its path relative to root. O_EXCL makes a file or fails: it opens
// nothing that was there.
func createTemp(root *os.Root, dir string) (*os.File, string, error) {
	for range 100 {
		name := filepath.Join(dir, ".artifact-"+strconv.FormatUint(uint64(rand.Uint32()), 10))
		f, err := root.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, name, err
	}
	return nil, "", fs.ErrExist
}
