package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/drover-io/drover/structs"
	"github.com/hashicorp/go-memdb"
)

// StateSnapshot is a point-in-time, read-only view of a store, with the
// store's read methods.
type StateSnapshot struct {
	reader
}

// Snapshot returns a view of the store as it is now. Later writes do not
// change it.
func (s *StateStore) Snapshot() (*StateSnapshot, error) {
	return &StateSnapshot{reader{db: s.db.Snapshot()}}, nil
}

// persistVersion is the version of the Persist stream format.
const persistVersion = 1

// Record types of the Persist stream.
const (
	recordHeader         = "header"
	recordJob            = "job"
	recordJobVersion     = "job_version"
	recordEval           = "eval"
	recordAlloc          = "alloc"
	recordNode           = "node"
	recordPeriodicLaunch = "periodic_launch"
	recordIndex          = "index"
)

// record is one line of the Persist stream, as Restore reads it.
type record struct {
	Type  string
	Value json.RawMessage
}

// outRecord is one line of the Persist stream, as Persist writes it.
type outRecord struct {
	Type  string
	Value any
}

// header opens the Persist stream.
type header struct {
	Version int
}

// persistedTables says which record type holds the rows of which table,
// in the order they are written.
var persistedTables = []struct{ table, record string }{
	{TableJobs, recordJob},
	{TableJobVersions, recordJobVersion},
	{TableEvals, recordEval},
	{TableAllocs, recordAlloc},
	{TableNodes, recordNode},
	{TablePeriodicLaunch, recordPeriodicLaunch},
	{TableIndex, recordIndex},
}

// Persist writes every table of the snapshot to w as a stream of JSON
// records, {"Type": ..., "Value": ...}, after a header with the format
// version. Restore reads it back.
func (snap *StateSnapshot) Persist(w io.Writer) error {
	enc := json.NewEncoder(w)
	if err := enc.Encode(outRecord{Type: recordHeader, Value: header{Version: persistVersion}}); err != nil {
		return fmt.Errorf("persist state: write header: %w", err)
	}
	txn := snap.txn()
	for _, t := range persistedTables {
		it, err := txn.Get(t.table, indexID)
		if err != nil {
			return fmt.Errorf("persist state: read table %s: %w", t.table, err)
		}
		for raw := it.Next(); raw != nil; raw = it.Next() {
			if err := enc.Encode(outRecord{Type: t.record, Value: raw}); err != nil {
				return fmt.Errorf("persist state: write %s record: %w", t.record, err)
			}
		}
	}
	return nil
}

// Restore builds a new store from a stream that Persist wrote.
func Restore(r io.Reader) (*StateStore, error) {
	s, err := NewStateStore()
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(r)
	if err := readHeader(dec); err != nil {
		return nil, fmt.Errorf("restore state: %w", err)
	}
	txn := s.db.Txn(true)
	defer txn.Abort()
	for n := 1; ; n++ {
		var rec record
		err := dec.Decode(&rec)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("restore state: read record %d: %w", n, err)
		}
		if err := restoreRecord(txn, rec); err != nil {
			return nil, fmt.Errorf("restore state: record %d (%s): %w", n, rec.Type, err)
		}
	}
	txn.Commit()
	return s, nil
}

func readHeader(dec *json.Decoder) error {
	var rec record
	if err := dec.Decode(&rec); err != nil {
		return fmt.Errorf("read header: %w", err)
	}
	if rec.Type != recordHeader {
		return fmt.Errorf("stream starts with a %q record, not a header", rec.Type)
	}
	var h header
	if err := json.Unmarshal(rec.Value, &h); err != nil {
		return fmt.Errorf("decode header: %w", err)
	}
	if h.Version != persistVersion {
		return fmt.Errorf("unsupported format version %d (this server reads version %d)", h.Version, persistVersion)
	}
	return nil
}

func restoreRecord(txn *memdb.Txn, rec record) error {
	switch rec.Type {
	case recordJob:
		return insertDecoded[structs.Job](txn, TableJobs, rec.Value)
	case recordJobVersion:
		return insertDecoded[structs.Job](txn, TableJobVersions, rec.Value)
	case recordEval:
		return insertDecoded[structs.Evaluation](txn, TableEvals, rec.Value)
	case recordAlloc:
		return insertDecoded[structs.Allocation](txn, TableAllocs, rec.Value)
	case recordNode:
		return insertDecoded[structs.Node](txn, TableNodes, rec.Value)
	case recordPeriodicLaunch:
		return insertDecoded[PeriodicLaunch](txn, TablePeriodicLaunch, rec.Value)
	case recordIndex:
		return insertDecoded[indexEntry](txn, TableIndex, rec.Value)
	default:
		return errors.New("unknown record type")
	}
}

func insertDecoded[T any](txn *memdb.Txn, table string, value json.RawMessage) error {
	obj := new(T)
	if err := json.Unmarshal(value, obj); err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	if err := txn.Insert(table, obj); err != nil {
		return fmt.Errorf("insert into %s: %w", table, err)
	}
	return nil
}
