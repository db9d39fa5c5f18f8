package lazylog

import (
	"io"
	"log"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/go-hclog"
)

// Logger is parent.Named(name).With(args...), made when first needed:
// when a line at an enabled level is logged, or when the logger itself is
// asked for something only it knows. Safe for concurrent use.
type Logger struct {
	parent hclog.Logger
	name   string
	args   []any

	once sync.Once
	made atomic.Pointer[hclog.Logger]
}

var _ hclog.Logger = (*Logger)(nil)

// New is a logger named name under parent (unnamed when name is empty),
// with args implied on each line.
func New(parent hclog.Logger, name string, args ...any) *Logger {
	return &Logger{parent: parent, name: name, args: args}
}

// logger is the logger, made now if it was not already.
func (z *Logger) logger() hclog.Logger {
	if l := z.made.Load(); l != nil {
		return *l
	}
	z.once.Do(func() {
		l := z.parent
		if lazy, ok := l.(*Logger); ok {
			// Made first, or its With and Named would be lazy again.
			l = lazy.logger()
		}
		if z.name != "" {
			l = l.Named(z.name)
		}
		if len(z.args) > 0 {
			l = l.With(z.args...)
		}
		z.made.Store(&l)
	})
	return *z.made.Load()
}

// enabled reports whether a line at level would be written: by the
// logger once made (its level may have been set), by its parent's level
// until then, which the logger inherits.
func (z *Logger) enabled(level hclog.Level) bool {
	if l := z.made.Load(); l != nil {
		return level >= (*l).GetLevel()
	}
	return level >= z.parent.GetLevel()
}

func (z *Logger) Log(level hclog.Level, msg string, args ...any) {
	if z.enabled(level) {
		z.logger().Log(level, msg, args...)
	}
}

func (z *Logger) Trace(msg string, args ...any) { z.Log(hclog.Trace, msg, args...) }
func (z *Logger) Debug(msg string, args ...any) { z.Log(hclog.Debug, msg, args...) }
func (z *Logger) Info(msg string, args ...any)  { z.Log(hclog.Info, msg, args...) }
func (z *Logger) Warn(msg string, args ...any)  { z.Log(hclog.Warn, msg, args...) }
func (z *Logger) Error(msg string, args ...any) { z.Log(hclog.Error, msg, args...) }

func (z *Logger) IsTrace() bool { return z.enabled(hclog.Trace) }
func (z *Logger) IsDebug() bool { return z.enabled(hclog.Debug) }
func (z *Logger) IsInfo() bool  { return z.enabled(hclog.Info) }
func (z *Logger) IsWarn() bool  { return z.enabled(hclog.Warn) }
func (z *Logger) IsError() bool { return z.enabled(hclog.Error) }

func (z *Logger) ImpliedArgs() []any { return z.logger().ImpliedArgs() }

// With, Named and ResetNamed are lazy in turn.
func (z *Logger) With(args ...any) hclog.Logger       { return New(z, "", args...) }
func (z *Logger) Named(name string) hclog.Logger      { return New(z, name) }
func (z *Logger) ResetNamed(name string) hclog.Logger { return z.logger().ResetNamed(name) }

func (z *Logger) Name() string { return z.logger().Name() }

func (z *Logger) SetLevel(level hclog.Level) { z.logger().SetLevel(level) }

func (z *Logger) GetLevel() hclog.Level {
	if l := z.made.Load(); l != nil {
		return (*l).GetLevel()
	}
	return z.parent.GetLevel()
}

func (z *Logger) StandardLogger(opts *hclog.StandardLoggerOptions) *log.Logger {
	return z.logger().StandardLogger(opts)
}

func (z *Logger) StandardWriter(opts *hclog.StandardLoggerOptions) io.Writer {
	return z.logger().StandardWriter(opts)
}
