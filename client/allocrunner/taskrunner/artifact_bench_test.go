package taskrunner

import (
	"context"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/drover-io/drover/client/allocdir"
	"github.com/drover-io/drover/internal/netguard"
	"github.com/drover-io/drover/structs"
)

// tenMiBArchive is a tar.gz of ten 1 MiB files of random bytes: 10 MiB
// that do not compress, so the fetch and the unpack both move 10 MiB.
func tenMiBArchive(b *testing.B) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	var entries []archiveEntry
	for i := range 10 {
		body := make([]byte, 1<<20)
		for j := range body {
			body[j] = byte(rng.Uint32())
		}
		entries = append(entries, archiveEntry{name: "f" + strconv.Itoa(i), body: string(body)})
	}
	return makeTar(b, true, entries...)
}

// BenchmarkFetchArtifact10MiB fetches and unpacks a 10 MiB tar.gz from
// a loopback server into a fresh task directory: the cost of a fetch
// (go-getter, staging, placing) beside the network and the unpack.
func BenchmarkFetchArtifact10MiB(b *testing.B) {
	archive := tenMiBArchive(b)
	srv := newBenchServer(b, archive)
	cfg := DefaultArtifactConfig()
	cfg.Addresses = mustLoopback(b)
	fetcher := newArtifactFetcher(cfg)
	defer fetcher.close()
	b.SetBytes(int64(len(archive)))
	for b.Loop() {
		b.StopTimer()
		td := benchTaskDir(b)
		env := buildTaskEnv(testAlloc(structs.JobTypeBatch, testTask("web", nil)), testTask("web", nil), td, nil)
		b.StartTimer()
		err := fetchArtifact(context.Background(), fetcher, &structs.TaskArtifact{GetterSource: srv + "/a.tar.gz", RelativeDest: "local/out"}, env, td, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if fi, err := os.Stat(filepath.Join(td.LocalDir, "out", "f9")); err != nil || fi.Size() != 1<<20 {
			b.Fatal("not unpacked", err)
		}
		os.RemoveAll(td.AllocDir)
		b.StartTimer()
	}
}

// newBenchServer serves body at every path, on 127.0.0.1.
func newBenchServer(b *testing.B, body []byte) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) }))
	b.Cleanup(srv.Close)
	return srv.URL
}

// mustLoopback is the default policy with loopback let through.
func mustLoopback(b *testing.B) *netguard.Policy {
	p, err := netguard.NewPolicy(netguard.DefaultDenylist, []string{"127.0.0.0/8"})
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// benchTaskDir is a built task directory of its own.
func benchTaskDir(b *testing.B) *allocdir.TaskDir {
	ad, err := allocdir.New(b.TempDir(), "a1")
	if err != nil {
		b.Fatal(err)
	}
	if err := ad.Build(); err != nil {
		b.Fatal(err)
	}
	td, err := ad.TaskDir("web")
	if err != nil {
		b.Fatal(err)
	}
	if err := td.Build(); err != nil {
		b.Fatal(err)
	}
	return td
}
