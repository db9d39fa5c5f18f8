package state

import (
	"time"

	"github.com/hashicorp/go-memdb"
)

// Table names, as Index takes them.
const (
	TableJobs           = "jobs"
	TableJobVersions    = "job_version"
	TableEvals          = "evals"
	TableAllocs         = "allocs"
	TableNodes          = "nodes"
	TablePeriodicLaunch = "periodic_launch"
	TableACLPolicies    = "acl_policy"
	TableACLTokens      = "acl_token"
	TableNamespaces     = "namespaces"
	TableIndex          = "index"
)

// Index names inside the tables.
const (
	indexID     = "id"
	indexJob    = "job"
	indexNode   = "node"
	indexParent = "parent"
	indexSecret = "secret"
)

// PeriodicLaunch records when a periodic job last launched a child, so a new
// leader neither skips nor repeats launches.
type PeriodicLaunch struct {
	ID          string
	Namespace   string
	Launch      time.Time
	CreateIndex uint64
	ModifyIndex uint64
}

// indexEntry is a row of the index table: the raft index that last wrote
// the table named Key.
type indexEntry struct {
	Key   string
	Value uint64
}

func stringField(name string) *memdb.StringFieldIndex {
	return &memdb.StringFieldIndex{Field: name}
}

// namespaced indexes objects by namespace and one more string field.
func namespaced(field string) *memdb.CompoundIndex {
	return &memdb.CompoundIndex{Indexes: []memdb.Indexer{stringField("Namespace"), stringField(field)}}
}

func schema() *memdb.DBSchema {
	return &memdb.DBSchema{Tables: map[string]*memdb.TableSchema{
		TableJobs: {
			Name: TableJobs,
			Indexes: map[string]*memdb.IndexSchema{
				indexID: {Name: indexID, Unique: true, Indexer: namespaced("ID")},
				// Only child jobs have a parent; the rest stay out of this index.
				indexParent: {Name: indexParent, AllowMissing: true, Indexer: namespaced("ParentID")},
			},
		},
		TableJobVersions: {
			Name: TableJobVersions,
			Indexes: map[string]*memdb.IndexSchema{
				indexID: {Name: indexID, Unique: true, Indexer: &memdb.CompoundIndex{Indexes: []memdb.Indexer{
					stringField("Namespace"), stringField("ID"), &memdb.UintFieldIndex{Field: "Version"},
				}}},
				// Exact lookup of one job's versions; a prefix scan on the id
				// index would also match jobs whose ID extends this one.
				indexJob: {Name: indexJob, Indexer: namespaced("ID")},
			},
		},
		TableEvals: {
			Name: TableEvals,
			Indexes: map[string]*memdb.IndexSchema{
				indexID:  {Name: indexID, Unique: true, Indexer: stringField("ID")},
				indexJob: {Name: indexJob, Indexer: namespaced("JobID")},
			},
		},
		TableAllocs: {
			Name: TableAllocs,
			Indexes: map[string]*memdb.IndexSchema{
				indexID:   {Name: indexID, Unique: true, Indexer: stringField("ID")},
				indexJob:  {Name: indexJob, Indexer: namespaced("JobID")},
				indexNode: {Name: indexNode, AllowMissing: true, Indexer: stringField("NodeID")},
			},
		},
		TableNodes: {
			Name: TableNodes,
			Indexes: map[string]*memdb.IndexSchema{
				indexID: {Name: indexID, Unique: true, Indexer: stringField("ID")},
			},
		},
		TablePeriodicLaunch: {
			Name: TablePeriodicLaunch,
			Indexes: map[string]*memdb.IndexSchema{
				indexID: {Name: indexID, Unique: true, Indexer: namespaced("ID")},
			},
		},
		TableACLPolicies: {
			Name: TableACLPolicies,
			Indexes: map[string]*memdb.IndexSchema{
				indexID: {Name: indexID, Unique: true, Indexer: stringField("Name")},
			},
		},
		TableACLTokens: {
			Name: TableACLTokens,
			Indexes: map[string]*memdb.IndexSchema{
				indexID:     {Name: indexID, Unique: true, Indexer: stringField("AccessorID")},
				indexSecret: {Name: indexSecret, Unique: true, Indexer: stringField("SecretID")},
			},
		},
		TableNamespaces: {
			Name: TableNamespaces,
			Indexes: map[string]*memdb.IndexSchema{
				indexID: {Name: indexID, Unique: true, Indexer: stringField("Name")},
			},
		},
		TableRootKeys:    rootKeysTable(),
		TableVariables:   variablesTable(),
		TableServices:    servicesTable(),
		TableDeployments: deploymentsTable(),
		TableIndex: {
			Name: TableIndex,
			Indexes: map[string]*memdb.IndexSchema{
				indexID: {Name: indexID, Unique: true, Indexer: stringField("Key")},
			},
		},
	}}
}
