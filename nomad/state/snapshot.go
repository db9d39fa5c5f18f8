package state

import (
	"crypto/sha256"
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

// persistVersion is the version of the Persist stream format that Persist
// writes. Version 1 wrote every allocation with its job; version 2 writes
// each job version once and allocations that name theirs. Restore reads
// both.
const (
	persistVersion       = 2
	persistVersionInline = 1
)

// Record types of the Persist stream.
const (
	recordHeader     = "header"
	recordJob        = "job"
	recordJobVersion = "job_version"
	// recordAllocJob is a job version that allocations run and that the
	// job versions table no longer holds (it keeps the newest few).
	recordAllocJob       = "alloc_job"
	recordEval           = "eval"
	recordAlloc          = "alloc"
	recordNode           = "node"
	recordPeriodicLaunch = "periodic_launch"
	recordACLPolicy      = "acl_policy"
	recordACLToken       = "acl_token"
	recordNamespace      = "namespace"
	recordIndex          = "index"
)

// record is one line of the Persist stream, as Restore reads it.
type record struct {
	Type  string
	Value json.RawMessage
	// Job, in an alloc record of version 2, names the version of the job
	// the allocation runs, written earlier in the stream.
	Job *structs.JobVersionKey
}

// outRecord is one line of the Persist stream, as Persist writes it.
type outRecord struct {
	Type  string
	Value any
	Job   *structs.JobVersionKey `json:",omitempty"`
}

// header opens the Persist stream.
type header struct {
	Version int
}

// persistedTables says which record type holds the rows of which table,
// in the order they are written. Allocations come after the job versions
// they run.
var persistedTables = []struct{ table, record string }{
	{TableJobs, recordJob},
	{TableJobVersions, recordJobVersion},
	{TableEvals, recordEval},
	{TableAllocs, recordAlloc},
	{TableNodes, recordNode},
	{TablePeriodicLaunch, recordPeriodicLaunch},
	{TableACLPolicies, recordACLPolicy},
	{TableACLTokens, recordACLToken},
	{TableNamespaces, recordNamespace},
	{TableRootKeys, recordRootKey},
	{TableVariables, recordVariable},
	{TableServices, recordService},
	{TableDeployments, recordDeployment},
	{TableIndex, recordIndex},
}

// Persist writes every table of the snapshot to w as a stream of JSON
// records, {"Type": ..., "Value": ...}, after a header with the format
// version. Restore reads it back. A job version is written once, however
// many allocations run it: allocations are written without their job and
// name its version, which is a job_version record or, for versions the
// table no longer keeps, an alloc_job record written before them.
func (snap *StateSnapshot) Persist(w io.Writer) error {
	enc := json.NewEncoder(w)
	if err := enc.Encode(outRecord{Type: recordHeader, Value: header{Version: persistVersion}}); err != nil {
		return fmt.Errorf("persist state: write header: %w", err)
	}
	txn := snap.txn()
	for _, t := range persistedTables {
		if t.table == TableAllocs {
			if err := snap.persistAllocs(txn, enc); err != nil {
				return err
			}
			continue
		}
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

// persistAllocs writes the job versions that allocations run and the job
// versions table does not hold, then the allocations.
func (snap *StateSnapshot) persistAllocs(txn *memdb.Txn, enc *json.Encoder) error {
	written := make(map[structs.JobVersionKey]bool)
	err := eachAlloc(txn, func(a *structs.Allocation) error {
		if !a.Job.Versioned() {
			return nil
		}
		key := a.Job.VersionKey()
		if written[key] {
			return nil
		}
		written[key] = true
		stored, err := snap.JobVersionByKey(key)
		if err != nil || stored != nil {
			return err
		}
		return enc.Encode(outRecord{Type: recordAllocJob, Value: a.Job})
	})
	if err != nil {
		return fmt.Errorf("persist state: write the jobs of allocations: %w", err)
	}
	err = eachAlloc(txn, func(a *structs.Allocation) error {
		rec := outRecord{Type: recordAlloc, Value: a}
		if a.Job.Versioned() {
			key := a.Job.VersionKey()
			slim := *a
			slim.Job = nil
			rec.Value, rec.Job = &slim, &key
		}
		return enc.Encode(rec)
	})
	if err != nil {
		return fmt.Errorf("persist state: write %s record: %w", recordAlloc, err)
	}
	return nil
}

func eachAlloc(txn *memdb.Txn, fn func(*structs.Allocation) error) error {
	it, err := txn.Get(TableAllocs, indexID)
	if err != nil {
		return fmt.Errorf("read table %s: %w", TableAllocs, err)
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		if err := fn(raw.(*structs.Allocation)); err != nil {
			return err
		}
	}
	return nil
}

// Restore builds a new store from a stream that Persist wrote, of either
// format version. Allocations of one job version share one copy of it, the
// job versions table's when it holds the version, also when the stream
// (version 1) held a copy in every allocation.
//
// A stream written before namespaces were stored has none: each namespace
// its jobs use is created, so that they stay readable and the namespace
// can be managed.
func Restore(r io.Reader) (*StateStore, error) {
	s, err := NewStateStore()
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(r)
	version, err := readHeader(dec)
	if err != nil {
		return nil, fmt.Errorf("restore state: %w", err)
	}
	rs := &restoring{version: version, jobs: make(map[structs.JobVersionKey]restoredJob)}
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
		if err := rs.record(txn, rec); err != nil {
			return nil, fmt.Errorf("restore state: record %d (%s): %w", n, rec.Type, err)
		}
	}
	if err := restoreAppliedIndex(txn); err != nil {
		return nil, fmt.Errorf("restore state: applied index: %w", err)
	}
	if err := createJobNamespaces(txn); err != nil {
		return nil, fmt.Errorf("restore state: %w", err)
	}
	txn.Commit()
	return s, nil
}

func readHeader(dec *json.Decoder) (int, error) {
	var rec record
	if err := dec.Decode(&rec); err != nil {
		return 0, fmt.Errorf("read header: %w", err)
	}
	if rec.Type != recordHeader {
		return 0, fmt.Errorf("stream starts with a %q record, not a header", rec.Type)
	}
	var h header
	if err := json.Unmarshal(rec.Value, &h); err != nil {
		return 0, fmt.Errorf("decode header: %w", err)
	}
	if h.Version != persistVersion && h.Version != persistVersionInline {
		return 0, fmt.Errorf("unsupported format version %d (this server reads versions %d and %d)",
			h.Version, persistVersionInline, persistVersion)
	}
	return h.Version, nil
}

// restoring is the state of one Restore: the job versions read so far, by
// key, which the allocations read later share.
type restoring struct {
	version int
	jobs    map[structs.JobVersionKey]restoredJob
	// dedup shares what allocations have in common, as the live store
	// does.
	dedup structs.Dedup
}

// restoredJob is a job read from the stream, with the hash of its record,
// so that the job versions table's copy of the current version can be the
// jobs table's, as in the live store, when the two records are the same.
type restoredJob struct {
	job  *structs.Job
	hash [sha256.Size]byte
}

func (rs *restoring) record(txn *memdb.Txn, rec record) error {
	switch rec.Type {
	case recordJob:
		return rs.job(txn, TableJobs, rec.Value)
	case recordJobVersion:
		return rs.job(txn, TableJobVersions, rec.Value)
	case recordAllocJob:
		return rs.job(txn, "", rec.Value)
	case recordEval:
		return insertDecoded[structs.Evaluation](txn, TableEvals, rec.Value)
	case recordAlloc:
		return rs.alloc(txn, rec)
	case recordNode:
		return insertDecoded[structs.Node](txn, TableNodes, rec.Value)
	case recordPeriodicLaunch:
		return insertDecoded[PeriodicLaunch](txn, TablePeriodicLaunch, rec.Value)
	case recordACLPolicy:
		return insertDecoded[structs.ACLPolicy](txn, TableACLPolicies, rec.Value)
	case recordACLToken:
		return insertDecoded[structs.ACLToken](txn, TableACLTokens, rec.Value)
	case recordNamespace:
		return insertDecoded[structs.Namespace](txn, TableNamespaces, rec.Value)
	case recordRootKey:
		return insertDecoded[structs.RootKey](txn, TableRootKeys, rec.Value)
	case recordVariable:
		return insertDecoded[structs.VariableEncrypted](txn, TableVariables, rec.Value)
	case recordService:
		return insertDecoded[structs.ServiceRegistration](txn, TableServices, rec.Value)
	case recordDeployment:
		return insertDecoded[structs.Deployment](txn, TableDeployments, rec.Value)
	case recordIndex:
		return insertDecoded[indexEntry](txn, TableIndex, rec.Value)
	default:
		return errors.New("unknown record type")
	}
}

// job restores a job record into table ("": into no table, an alloc_job)
// and remembers it for the allocations of its version.
func (rs *restoring) job(txn *memdb.Txn, table string, value json.RawMessage) error {
	hash := sha256.Sum256(value)
	job := new(structs.Job)
	if err := json.Unmarshal(value, job); err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	key := job.VersionKey()
	if seen, ok := rs.jobs[key]; ok && seen.hash == hash {
		job = seen.job
	}
	rs.jobs[key] = restoredJob{job: job, hash: hash}
	if table == "" {
		return nil
	}
	if err := txn.Insert(table, job); err != nil {
		return fmt.Errorf("insert into %s: %w", table, err)
	}
	return nil
}

// alloc restores an allocation with the shared copy of its job version.
func (rs *restoring) alloc(txn *memdb.Txn, rec record) error {
	alloc := new(structs.Allocation)
	if err := json.Unmarshal(rec.Value, alloc); err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	rs.dedup.Allocation(alloc)
	switch {
	case rec.Job != nil:
		seen, ok := rs.jobs[*rec.Job]
		if !ok {
			return fmt.Errorf("allocation %q runs version %d of job %q (namespace %q, job modify index %d), which the stream does not hold before it",
				alloc.ID, rec.Job.Version, rec.Job.ID, rec.Job.Namespace, rec.Job.JobModifyIndex)
		}
		alloc.Job = seen.job
	case alloc.Job.Versioned() && rs.version == persistVersionInline:
		// Each allocation held a copy of its job: keep the first one
		// seen of each version (the table's, if it holds it), and let
		// the others go.
		key := alloc.Job.VersionKey()
		if seen, ok := rs.jobs[key]; ok {
			alloc.Job = seen.job
		} else {
			rs.jobs[key] = restoredJob{job: alloc.Job}
		}
	}
	if err := txn.Insert(TableAllocs, alloc); err != nil {
		return fmt.Errorf("insert into %s: %w", TableAllocs, err)
	}
	return nil
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

// createJobNamespaces creates the namespace of each job that has none, at
// the job's create index.
func createJobNamespaces(txn *memdb.Txn) error {
	it, err := txn.Get(TableJobs, indexID)
	if err != nil {
		return fmt.Errorf("read jobs: %w", err)
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		job := raw.(*structs.Job)
		exists, err := namespaceExists(txn, job.Namespace)
		if err != nil {
			return err
		}
		if exists {
			continue
		}
		ns := &structs.Namespace{
			Name:        job.Namespace,
			Description: "created for the jobs it held before namespaces were stored",
			CreateIndex: job.CreateIndex,
			ModifyIndex: job.CreateIndex,
		}
		if err := txn.Insert(TableNamespaces, ns); err != nil {
			return fmt.Errorf("create namespace %q of job %q: %w", ns.Name, job.ID, err)
		}
	}
	return nil
}
