package drivers

import "errors"

// RecoverableError marks a StartTask failure as worth retrying (a transient
// condition) or not (the task can never start as configured). The task
// runner applies the restart policy only to recoverable failures.
type RecoverableError struct {
	Err         error
	Recoverable bool
}

// NewRecoverableError wraps err with its recoverability.
func NewRecoverableError(err error, recoverable bool) error {
	if err == nil {
		return nil
	}
	return &RecoverableError{Err: err, Recoverable: recoverable}
}

func (e *RecoverableError) Error() string { return e.Err.Error() }

func (e *RecoverableError) Unwrap() error { return e.Err }

// IsRecoverable reports whether err, or an error it wraps, is a
// RecoverableError marked recoverable.
func IsRecoverable(err error) bool {
	var re *RecoverableError
	return errors.As(err, &re) && re.Recoverable
}
