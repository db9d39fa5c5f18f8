package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/hashicorp/go-hclog"
	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/drover-io/drover/structs"
)

// schemaVersion is the layout this package writes. Layout "1" held every
// allocation with its job; it is read as it is, and upgraded to "2" when
// opened (the allocations written from then on name their job version).
// A database written with any other layout is refused rather than
// misread, and so is a "2" by a client that knows only "1".
const (
	schemaVersion       = "2"
	schemaVersionInline = "1"
)

// The database layout:
//
//	meta/version                         schemaVersion
//	allocations/<alloc id>/alloc         the allocation (JSON), without its job
//	allocations/<alloc id>/job           the key of its job version (JSON)
//	allocations/<alloc id>/runner_state  AllocRunnerState (JSON)
//	allocations/<alloc id>/tasks/<task>/local_state  TaskRunnerLocalState
//	allocations/<alloc id>/tasks/<task>/task_state   structs.TaskState
//	jobs/<job key>/job                   the job version (JSON), once
//	jobs/<job key>/allocs/<alloc id>     the allocations that run it
var (
	metaBucket        = []byte("meta")
	versionKey        = []byte("version")
	allocationsBucket = []byte("allocations")
	allocKey          = []byte("alloc")
	allocJobKey       = []byte("job")
	runnerStateKey    = []byte("runner_state")
	tasksBucket       = []byte("tasks")
	localStateKey     = []byte("local_state")
	taskStateKey      = []byte("task_state")
	jobsBucket        = []byte("jobs")
	jobKey            = []byte("job")
	jobAllocsBucket   = []byte("allocs")
)

// openTimeout bounds the wait for the file lock held by another process
// using the same data dir.
const openTimeout = 5 * time.Second

// BoltStateDB is a StateDB in a bbolt file.
type BoltStateDB struct {
	logger hclog.Logger
	db     *bolt.DB
	// writes commits the runners' state writes, which come in bursts.
	writes *groupCommit
}

var _ StateDB = (*BoltStateDB)(nil)

// OpenBoltStateDB opens, creating if needed, <dir>/state.db: the client's
// state directory is configurable apart from the data dir.
func OpenBoltStateDB(logger hclog.Logger, dir string) (StateDB, error) {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create client state dir %s: %w", dir, err)
	}
	path := filepath.Join(dir, "state.db")
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: openTimeout})
	if err != nil {
		return nil, fmt.Errorf("open client state %s: %w", path, err)
	}
	if err := db.Update(initSchema); err != nil {
		db.Close()
		return nil, fmt.Errorf("open client state %s: %w", path, err)
	}
	return &BoltStateDB{logger: logger.Named("client_state"), db: db, writes: &groupCommit{db: db}}, nil
}

func initSchema(tx *bolt.Tx) error {
	meta, err := tx.CreateBucketIfNotExists(metaBucket)
	if err != nil {
		return err
	}
	switch v := string(meta.Get(versionKey)); v {
	case schemaVersion:
	case "", schemaVersionInline:
		if err := meta.Put(versionKey, []byte(schemaVersion)); err != nil {
			return err
		}
	default:
		return fmt.Errorf("state schema version %q is not supported (want %q or %q)", v, schemaVersionInline, schemaVersion)
	}
	if _, err := tx.CreateBucketIfNotExists(jobsBucket); err != nil {
		return err
	}
	_, err = tx.CreateBucketIfNotExists(allocationsBucket)
	return err
}

// PutAllocation stores the allocation and, once, the job version it runs.
func (s *BoltStateDB) PutAllocation(alloc *structs.Allocation) error {
	if alloc == nil || alloc.ID == "" {
		return errors.New("put allocation: allocation with an ID is required")
	}
	return s.db.Update(func(tx *bolt.Tx) error {
		b, err := allocBucket(tx, alloc.ID, true)
		if err != nil {
			return err
		}
		if err := putAllocJob(tx, b, alloc); err != nil {
			return fmt.Errorf("put allocation %s: %w", alloc.ID, err)
		}
		if !alloc.Job.Versioned() {
			return putJSON(b, allocKey, alloc) // its job has no version to name
		}
		slim := *alloc
		slim.Job = nil
		return putJSON(b, allocKey, &slim)
	})
}

// GetAllAllocations returns the allocations, those of one job version
// sharing one copy of it, also those of layout "1", which each held a copy.
func (s *BoltStateDB) GetAllAllocations() ([]*structs.Allocation, map[string]error, error) {
	var (
		allocs []*structs.Allocation
		errs   = make(map[string]error)
	)
	err := s.db.View(func(tx *bolt.Tx) error {
		root := tx.Bucket(allocationsBucket)
		jobs := newJobReader(tx)
		return root.ForEachBucket(func(id []byte) error {
			b := root.Bucket(id)
			var alloc structs.Allocation
			found, err := getJSON(b, allocKey, &alloc)
			switch {
			case err != nil:
				errs[string(id)] = err
				return nil
			case !found:
				errs[string(id)] = errors.New("allocation has state but no allocation record")
				return nil
			}
			if err := jobs.attach(b, &alloc); err != nil {
				errs[string(id)] = err
				return nil
			}
			allocs = append(allocs, &alloc)
			return nil
		})
	})
	if err != nil {
		return nil, nil, fmt.Errorf("read allocations: %w", err)
	}
	return allocs, errs, nil
}

// DeleteAllocationBucket removes everything stored for the allocation, and
// its job version when no other allocation runs it.
func (s *BoltStateDB) DeleteAllocationBucket(allocID string) error {
	return s.db.Update(func(tx *bolt.Tx) error {
		b, err := allocBucket(tx, allocID, false)
		if err != nil || b == nil {
			return err
		}
		if err := releaseJob(tx, b.Get(allocJobKey), allocID); err != nil {
			return fmt.Errorf("delete allocation %s: %w", allocID, err)
		}
		err = tx.Bucket(allocationsBucket).DeleteBucket([]byte(allocID))
		if errors.Is(err, bolterrors.ErrBucketNotFound) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("delete allocation %s: %w", allocID, err)
		}
		return nil
	})
}

func (s *BoltStateDB) PutAllocRunnerState(allocID string, st *AllocRunnerState) error {
	if st == nil {
		return fmt.Errorf("put alloc runner state of %s: state is nil", allocID)
	}
	return s.writes.update(func(tx *bolt.Tx) error {
		b, err := allocBucket(tx, allocID, true)
		if err != nil {
			return err
		}
		return putJSON(b, runnerStateKey, st)
	})
}

func (s *BoltStateDB) GetAllocRunnerState(allocID string) (*AllocRunnerState, error) {
	var st *AllocRunnerState
	err := s.db.View(func(tx *bolt.Tx) error {
		b, err := allocBucket(tx, allocID, false)
		if b == nil || err != nil {
			return err
		}
		var v AllocRunnerState
		found, err := getJSON(b, runnerStateKey, &v)
		if found {
			st = &v
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read alloc runner state of %s: %w", allocID, err)
	}
	return st, nil
}

func (s *BoltStateDB) PutTaskRunnerState(allocID, task string, local *TaskRunnerLocalState, ts *structs.TaskState) error {
	if local == nil && ts == nil {
		return nil
	}
	return s.writes.update(func(tx *bolt.Tx) error {
		b, err := taskBucket(tx, allocID, task, true)
		if err != nil {
			return err
		}
		if local != nil {
			if err := putJSON(b, localStateKey, local); err != nil {
				return err
			}
		}
		if ts != nil {
			return putJSON(b, taskStateKey, ts)
		}
		return nil
	})
}

func (s *BoltStateDB) GetTaskRunnerState(allocID, task string) (*TaskRunnerLocalState, *structs.TaskState, error) {
	var (
		local *TaskRunnerLocalState
		ts    *structs.TaskState
	)
	err := s.db.View(func(tx *bolt.Tx) error {
		b, err := taskBucket(tx, allocID, task, false)
		if b == nil || err != nil {
			return err
		}
		var l TaskRunnerLocalState
		found, err := getJSON(b, localStateKey, &l)
		if err != nil {
			return err
		}
		if found {
			local = &l
		}
		var t structs.TaskState
		found, err = getJSON(b, taskStateKey, &t)
		if found {
			ts = &t
		}
		return err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("read state of task %q in %s: %w", task, allocID, err)
	}
	return local, ts, nil
}

func (s *BoltStateDB) Close() error {
	return s.db.Close()
}

// allocBucket returns the allocation's bucket, creating it when create is
// set; otherwise a missing bucket is (nil, nil).
func allocBucket(tx *bolt.Tx, allocID string, create bool) (*bolt.Bucket, error) {
	if allocID == "" {
		return nil, errors.New("allocation ID is required")
	}
	root := tx.Bucket(allocationsBucket)
	if !create {
		return root.Bucket([]byte(allocID)), nil
	}
	b, err := root.CreateBucketIfNotExists([]byte(allocID))
	if err != nil {
		return nil, fmt.Errorf("create bucket of allocation %s: %w", allocID, err)
	}
	return b, nil
}

// taskBucket returns the task's bucket within its allocation's, as
// allocBucket does.
func taskBucket(tx *bolt.Tx, allocID, task string, create bool) (*bolt.Bucket, error) {
	if task == "" {
		return nil, errors.New("task name is required")
	}
	ab, err := allocBucket(tx, allocID, create)
	if ab == nil || err != nil {
		return nil, err
	}
	if !create {
		tb := ab.Bucket(tasksBucket)
		if tb == nil {
			return nil, nil
		}
		return tb.Bucket([]byte(task)), nil
	}
	tb, err := ab.CreateBucketIfNotExists(tasksBucket)
	if err != nil {
		return nil, fmt.Errorf("create tasks bucket of allocation %s: %w", allocID, err)
	}
	b, err := tb.CreateBucketIfNotExists([]byte(task))
	if err != nil {
		return nil, fmt.Errorf("create bucket of task %q in %s: %w", task, allocID, err)
	}
	return b, nil
}

func putJSON(b *bolt.Bucket, key []byte, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", key, err)
	}
	if err := b.Put(key, data); err != nil {
		return fmt.Errorf("write %s: %w", key, err)
	}
	return nil
}

// getJSON decodes the value at key into v and reports whether there was one.
func getJSON(b *bolt.Bucket, key []byte, v any) (bool, error) {
	data := b.Get(key)
	if data == nil {
		return false, nil
	}
	if err := json.Unmarshal(data, v); err != nil {
		return true, fmt.Errorf("decode %s: %w", key, err)
	}
	return true, nil
}
