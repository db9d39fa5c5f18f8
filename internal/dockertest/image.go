package dockertest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/moby/moby/client"
)

// ImageOptions shapes a test image.
type ImageOptions struct {
	// Name is the repository within the registry; "app" when empty.
	Name string
	// Tag is the image's tag; one unique to the test when empty.
	Tag string
	// FillerBytes adds a layer of that many random (incompressible)
	// bytes, for a pull that takes long when the layer is throttled.
	FillerBytes int
	// Cmd is the image's default command, arguments to testapp.
	Cmd []string
}

// Image is a test image pushed to a Registry.
type Image struct {
	// Ref is the reference the engine pulls, host:port/name:tag.
	Ref string
	// FillerDigest is the digest of the filler layer, if any.
	FillerDigest string
	// FillerSize is the filler layer's compressed size.
	FillerSize int64
}

var tagSeq struct {
	sync.Mutex
	n int
}

// PushImage builds an image FROM scratch holding testapp as its
// entrypoint (/testapp), pushes it to reg, and removes it from the engine
// when the test ends, with every container made from it.
func PushImage(t testing.TB, reg *Registry, opts ImageOptions) *Image {
	t.Helper()
	if opts.Name == "" {
		opts.Name = "app"
	}
	if opts.Tag == "" {
		tagSeq.Lock()
		tagSeq.n++
		opts.Tag = fmt.Sprintf("t%d-%d", os.Getpid(), tagSeq.n)
		tagSeq.Unlock()
	}
	layers := []v1.Layer{testAppLayer(t)}
	img := &Image{}
	if opts.FillerBytes > 0 {
		// Random, so that no other image shares it and the engine has to
		// download it; stored, not compressed, so that it costs nothing
		// to make (and its compressed size is its size).
		filler := make([]byte, opts.FillerBytes)
		rand.Read(filler)
		l := tarLayer(t, map[string][]byte{"filler": filler}, 0o644, gzip.NoCompression)
		d, err := l.Digest()
		if err != nil {
			t.Fatalf("filler digest: %v", err)
		}
		img.FillerDigest = d.String()
		if img.FillerSize, err = l.Size(); err != nil {
			t.Fatalf("filler size: %v", err)
		}
		layers = append(layers, l)
	}
	base, err := mutate.ConfigFile(empty.Image, &v1.ConfigFile{
		Architecture: runtime.GOARCH,
		OS:           "linux",
		Config: v1.Config{
			Entrypoint: []string{"/testapp"},
			Cmd:        opts.Cmd,
			// The tag makes each image's config, so its ID, its own.
			Labels: map[string]string{TestLabel: opts.Name + ":" + opts.Tag},
		},
		RootFS: v1.RootFS{Type: "layers"},
	})
	if err != nil {
		t.Fatalf("image config: %v", err)
	}
	image, err := mutate.AppendLayers(base, layers...)
	if err != nil {
		t.Fatalf("image layers: %v", err)
	}
	img.Ref = fmt.Sprintf("%s/%s:%s", reg.Host, opts.Name, opts.Tag)
	if err := reg.push(opts.Name, opts.Tag, image); err != nil {
		t.Fatalf("push %s: %v", img.Ref, err)
	}
	t.Cleanup(func() { RemoveImage(t, img.Ref) })
	return img
}

var appLayer struct {
	once  sync.Once
	layer v1.Layer
}

// testAppLayer is the layer holding testapp, made once per process: every
// test image shares it.
func testAppLayer(t testing.TB) v1.Layer {
	t.Helper()
	path := TestAppBinary(t)
	appLayer.once.Do(func() {
		app, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("read testapp: %v", err)
		}
		appLayer.layer = tarLayer(t, map[string][]byte{"testapp": app}, 0o755, gzip.BestSpeed)
	})
	if appLayer.layer == nil {
		t.Fatal("no testapp layer")
	}
	return appLayer.layer
}

func tarLayer(t testing.TB, files map[string][]byte, mode int64, level int) v1.Layer {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for path, data := range files {
		hdr := &tar.Header{Name: path, Mode: mode, Size: int64(len(data)), ModTime: time.Unix(0, 0), Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatalf("layer: %v", err)
		}
		if _, err := tw.Write(data); err != nil {
			t.Fatalf("layer: %v", err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatalf("layer: %v", err)
	}
	data := buf.Bytes()
	l, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}, tarball.WithCompressionLevel(level), tarball.WithCompressedCaching)
	if err != nil {
		t.Fatalf("layer: %v", err)
	}
	return l
}

// RemoveImage removes the image from the engine, with every container
// made from it; an image the engine does not have is fine.
func RemoveImage(t testing.TB, ref string) {
	t.Helper()
	c, err := client.New(client.FromEnv)
	if err != nil {
		t.Errorf("remove image %s: %v", ref, err)
		return
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	list, err := c.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: make(client.Filters).Add("ancestor", ref)})
	if err == nil {
		for _, ctr := range list.Items {
			if _, err := c.ContainerRemove(ctx, ctr.ID, client.ContainerRemoveOptions{Force: true}); err != nil && !cerrdefs.IsNotFound(err) {
				t.Errorf("remove container %s of %s: %v", ctr.ID, ref, err)
			}
		}
	}
	if _, err := c.ImageRemove(ctx, ref, client.ImageRemoveOptions{Force: true, PruneChildren: true}); err != nil && !cerrdefs.IsNotFound(err) {
		t.Errorf("remove image %s: %v", ref, err)
	}
}

var testApp struct {
	once sync.Once
	path string
	err  error
}

// TestAppBinary builds testapp, static, once per test process, and
// returns its path.
func TestAppBinary(t testing.TB) string {
	t.Helper()
	testApp.once.Do(func() {
		dir, err := os.MkdirTemp("", "drover-testapp")
		if err != nil {
			testApp.err = err
			return
		}
		testApp.path = filepath.Join(dir, "testapp")
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", testApp.path, "github.com/drover-io/drover/internal/dockertest/testapp")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
		if out, err := cmd.CombinedOutput(); err != nil {
			testApp.err = fmt.Errorf("go build testapp: %v: %s", err, out)
		}
	})
	if testApp.err != nil {
		t.Fatal(testApp.err)
	}
	return testApp.path
}

// RemoveTestApp deletes the binary TestAppBinary built; call it from
// TestMain once the tests are done.
func RemoveTestApp() {
	if testApp.path != "" {
		os.RemoveAll(filepath.Dir(testApp.path))
	}
}

func nullLogger() *log.Logger { return log.New(io.Discard, "", 0) }
