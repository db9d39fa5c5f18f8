package dockertest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/url"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// push uploads the image's blobs and manifest by the distribution API's
// monolithic upload: a POST for an upload location, a PUT of the blob.
func (r *Registry) push(repo, tag string, img v1.Image) error {
	layers, err := img.Layers()
	if err != nil {
		return err
	}
	for _, l := range layers {
		d, err := l.Digest()
		if err != nil {
			return err
		}
		rc, err := l.Compressed()
		if err != nil {
			return err
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return err
		}
		if err := r.putBlob(repo, d.String(), data); err != nil {
			return err
		}
	}
	cfgName, err := img.ConfigName()
	if err != nil {
		return err
	}
	cfg, err := img.RawConfigFile()
	if err != nil {
		return err
	}
	if err := r.putBlob(repo, cfgName.String(), cfg); err != nil {
		return err
	}
	manifest, err := img.RawManifest()
	if err != nil {
		return err
	}
	mt, err := img.MediaType()
	if err != nil {
		return err
	}
	req, err := http.NewRequest(http.MethodPut, fmt.Sprintf("http://%s/v2/%s/manifests/%s", r.Host, repo, tag), bytes.NewReader(manifest))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", string(mt))
	return do(req, http.StatusCreated)
}

func (r *Registry) putBlob(repo, digest string, data []byte) error {
	resp, err := http.Post(fmt.Sprintf("http://%s/v2/%s/blobs/uploads/", r.Host, repo), "", nil)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		return fmt.Errorf("start upload of %s: %s", digest, resp.Status)
	}
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		return fmt.Errorf("upload location of %s: %w", digest, err)
	}
	base := &url.URL{Scheme: "http", Host: r.Host}
	loc = base.ResolveReference(loc)
	q := loc.Query()
	q.Set("digest", digest)
	loc.RawQuery = q.Encode()
	req, err := http.NewRequest(http.MethodPut, loc.String(), bytes.NewReader(data))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/octet-stream")
	return do(req, http.StatusCreated)
}

func do(req *http.Request, want int) error {
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != want {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
		return fmt.Errorf("%s %s: %s: %s", req.Method, req.URL.Path, resp.Status, body)
	}
	return nil
}
