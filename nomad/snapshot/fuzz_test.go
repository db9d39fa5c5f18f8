package snapshot

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/nomad/state"
)

// FuzzRead feeds arbitrary bytes to the archive reader, as a restore
// request's body does, and what it accepts to the state store's restore,
// as a server then does. Neither may panic, and the reader may not write
// more state than the archive's metadata announced. Plain `go test` runs
// the seeds below and those in testdata/fuzz/FuzzRead.
func FuzzRead(f *testing.F) {
	var archive bytes.Buffer
	if err := Write(&archive, testMeta(), bytes.NewReader(testState)); err != nil {
		f.Fatal(err)
	}
	valid := archive.Bytes()
	f.Add(valid)
	f.Add(valid[:len(valid)/2])
	f.Add([]byte{})
	f.Add([]byte("\x1f\x8b"))
	f.Add(append(append([]byte{}, valid...), valid...))

	var withState bytes.Buffer
	stateBin := []byte(`{"Type":"header","Value":{"Version":1}}
{"Type":"job","Value":{"ID":"j","Namespace":"default","TaskGroups":[{"Name":"g","Count":1}]}}
{"Type":"eval","Value":{"ID":"e","Namespace":"default","JobID":"j"}}
{"Type":"alloc","Value":{"ID":"a","Namespace":"default","JobID":"j","Job":null}}
{"Type":"index","Value":{"Key":"jobs","Value":3}}
`)
	meta := testMeta()
	meta.Size = int64(len(stateBin))
	if err := Write(&withState, meta, bytes.NewReader(stateBin)); err != nil {
		f.Fatal(err)
	}
	f.Add(withState.Bytes())

	f.Fuzz(func(t *testing.T, data []byte) {
		var out limitedBuffer
		m, err := Read(bytes.NewReader(data), &out)
		if err != nil {
			must.NotEq(t, "", err.Error())
			return
		}
		must.Eq(t, m.Size, int64(out.Len()), must.Sprint("state written must be the size meta.json announced"))
		if _, err := state.Restore(bytes.NewReader(out.Bytes())); err != nil {
			must.NotEq(t, "", err.Error())
		}
	})
}

// limitedBuffer refuses to grow past what a fuzz input can reasonably
// expand to: a reader that wrote without bound would fail here rather
// than exhaust the machine.
type limitedBuffer struct{ bytes.Buffer }

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if b.Len()+len(p) > 64<<20 {
		return 0, errors.New("more than 64 MiB of state from one fuzz input")
	}
	return b.Buffer.Write(p)
}

var _ io.Writer = (*limitedBuffer)(nil)
