package structs

import (
	"fmt"
	"strings"
)

// ValidationError lists every problem validation found, so that a user fixes
// them all in one round. Each error names where it is ("Task group "g" task
// "t": Missing driver"). errors.Is and errors.As see each of them.
type ValidationError struct {
	Errors []error
}

// Error formats the problems one per line:
//
//	2 errors occurred:
//		* Missing job ID
//		* Task group "g": Missing tasks
func (e *ValidationError) Error() string {
	var b strings.Builder
	if len(e.Errors) == 1 {
		b.WriteString("1 error occurred:\n")
	} else {
		fmt.Fprintf(&b, "%d errors occurred:\n", len(e.Errors))
	}
	for _, err := range e.Errors {
		fmt.Fprintf(&b, "\t* %s\n", err)
	}
	return b.String()
}

// Unwrap returns the problems.
func (e *ValidationError) Unwrap() []error { return e.Errors }

// problems collects validation errors, each prefixed with where it is.
type problems struct {
	errs []error
}

// add records a problem at where ("" for the job itself). format may use %w.
func (p *problems) add(where, format string, args ...any) {
	if where != "" {
		format = "%s: " + format
		args = append([]any{where}, args...)
	}
	p.errs = append(p.errs, fmt.Errorf(format, args...))
}

// err returns nil when nothing was found, else a *ValidationError.
func (p *problems) err() error {
	if len(p.errs) == 0 {
		return nil
	}
	return &ValidationError{Errors: p.errs}
}

// JoinValidation merges validation errors into one that lists every
// problem of each, or nil when all are nil. An error that is not a
// *ValidationError is kept as one problem.
func JoinValidation(errs ...error) error {
	var p problems
	for _, err := range errs {
		if err == nil {
			continue
		}
		if v, ok := err.(*ValidationError); ok {
			p.errs = append(p.errs, v.Errors...)
			continue
		}
		p.errs = append(p.errs, err)
	}
	return p.err()
}
