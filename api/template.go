package api

import "time"

// Template is a task's template block: a file rendered into the task's
// directory before it starts, and again when the data it reads changes.
// The fields are Nomad's, with their JSON names.
type Template struct {
	SourcePath    *string
	DestPath      *string
	EmbeddedTmpl  *string
	ChangeMode    *string
	ChangeScript  *ChangeScript
	ChangeSignal  *string
	Once          *bool
	Splay         *time.Duration
	Perms         *string
	Uid           *int
	Gid           *int
	LeftDelim     *string
	RightDelim    *string
	Envvars       *bool
	Wait          *WaitConfig
	ErrMissingKey *bool
}

// ChangeScript is the script a template's change_mode "script" runs in
// the task when its file changed.
type ChangeScript struct {
	Command     *string
	Args        []string
	Timeout     *time.Duration
	FailOnError *bool
}

// WaitConfig is a template's wait block.
type WaitConfig struct {
	Min *time.Duration
	Max *time.Duration
}
