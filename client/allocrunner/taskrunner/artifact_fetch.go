package taskrunner

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"

	"github.com/drover-io/drover/client/allocdir"
	"github.com/drover-io/drover/structs"
)

// fetchArtifact downloads one artifact over HTTP(S) to its destination,
// verifies its checksum, and unpacks it, within limits, when it is an
// archive. The destination is relative to the task directory and may
// reach the rest of the allocation directory (../alloc/data); nothing is
// ever written outside the allocation directory.
func fetchArtifact(ctx context.Context, client *http.Client, art *structs.TaskArtifact, env *taskEnv, dir *allocdir.TaskDir, limits *ArtifactConfig) error {
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
	tmp, err := download(ctx, client, src, headers, art.GetterInsecure, dir.Dir)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
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
// file in dir and returns its path. The request is abandoned as soon as
// ctx is done.
func download(ctx context.Context, client *http.Client, src *url.URL, headers map[string]string, insecure bool, dir string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, src.String(), nil)
	if err != nil {
		return "", fmt.Errorf("build request: %w", err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := httpClient(client, insecure).Do(req)
	if err != nil {
		return "", fmt.Errorf("download: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return "", fmt.Errorf("download: server answered %s", resp.Status)
	}

	f, err := os.CreateTemp(dir, ".artifact-*")
	if err != nil {
		return "", fmt.Errorf("create download file: %w", err)
	}
	_, err = io.Copy(f, resp.Body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("download: %w", err)
	}
	return f.Name(), nil
}

// httpClient returns client, or a default one, with certificate checks off
// when the artifact asks for it.
func httpClient(client *http.Client, insecure bool) *http.Client {
	if client == nil {
		client = http.DefaultClient
	}
	if !insecure {
		return client
	}
	base, ok := client.Transport.(*http.Transport)
	if !ok || base == nil {
		base = http.DefaultTransport.(*http.Transport)
	}
	tr := base.Clone()
	if tr.TLSClientConfig == nil {
		tr.TLSClientConfig = &tls.Config{}
	}
	tr.TLSClientConfig.InsecureSkipVerify = true
	c := *client
	c.Transport = tr
	return &c
}

// placeFile moves the downloaded file to dest, relative to root.
func placeFile(root *os.Root, tmp, dest string) error {
	if !filepath.IsLocal(dest) {
		return fmt.Errorf("destination %q: %w", dest, allocdir.ErrOutsideDir)
	}
	if err := root.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return fmt.Errorf("create destination: %w", err)
	}
	src, err := os.Open(tmp)
	if err != nil {
		return fmt.Errorf("open download: %w", err)
	}
	defer src.Close()
	dst, err := root.OpenFile(dest, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("create %s: %w", dest, err)
	}
	_, err = io.Copy(dst, src)
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", dest, err)
	}
	return nil
}
