package allocrunner

import "fmt"

// Restore loads the persisted state of the runner and its tasks. Call it
// before Run when picking up after an agent restart: Run then re-attaches
// to the tasks still running instead of starting them again.
func (ar *AllocRunner) Restore() error {
	rs, err := ar.stateDB.GetAllocRunnerState(ar.id)
	if err != nil {
		return fmt.Errorf("restore allocation %s: %w", ar.id, err)
	}
	if rs != nil {
		ar.mu.Lock()
		ar.arState = rs
		ar.mu.Unlock()
	}
	for _, e := range ar.tasks {
		if err := e.runner.Restore(); err != nil {
			return fmt.Errorf("restore allocation %s: %w", ar.id, err)
		}
	}
	return nil
}
