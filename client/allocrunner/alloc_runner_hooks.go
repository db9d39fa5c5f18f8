package allocrunner

import (
	"fmt"
)

// initRunnerHooks returns the runner hooks in the order they run.
func (ar *AllocRunner) initRunnerHooks(cfg *Config) []RunnerHook {
	return []RunnerHook{
		newAllocDirHook(ar.allocDir, ar.logger),
		newNetworkHook(ar.alloc, cfg.Network, ar.setNetwork, ar.logger),
		newMaxRunDurationHook(ar.alloc, ar, ar.maxRunMetrics, cfg.MetricsCollectionInterval, ar.logger),
		newServiceChecksHook(ar.alloc, ar.node, cfg.Artifact.AddressPolicy(), ar.logger),
	}
}

// prerun runs the Prerun hooks; the first error stops them.
func (ar *AllocRunner) prerun() error {
	for _, h := range ar.hooks {
		if pre, ok := h.(RunnerPrerunHook); ok {
			if err := pre.Prerun(); err != nil {
				return fmt.Errorf("prerun hook %q: %w", h.Name(), err)
			}
		}
	}
	return nil
}

func (ar *AllocRunner) updateHooks(req *RunnerUpdateRequest) {
	for _, h := range ar.hooks {
		if up, ok := h.(RunnerUpdateHook); ok {
			if err := up.Update(req); err != nil {
				ar.logger.Error("update hook failed", "hook", h.Name(), "error", err)
			}
		}
	}
}

func (ar *AllocRunner) preKill() {
	for _, h := range ar.hooks {
		if pk, ok := h.(RunnerPreKillHook); ok {
			pk.PreKill()
		}
	}
}

func (ar *AllocRunner) postrun() {
	for _, h := range ar.hooks {
		if post, ok := h.(RunnerPostrunHook); ok {
			if err := post.Postrun(); err != nil {
				ar.logger.Error("postrun hook failed", "hook", h.Name(), "error", err)
			}
		}
	}
}

func (ar *AllocRunner) shutdownHooks() {
	for _, h := range ar.hooks {
		if sh, ok := h.(RunnerShutdownHook); ok {
			sh.Shutdown()
		}
	}
}

func (ar *AllocRunner) destroyHooks() {
	for _, h := range ar.hooks {
		if d, ok := h.(RunnerDestroyHook); ok {
			if err := d.Destroy(); err != nil {
				ar.logger.Error("destroy hook failed", "hook", h.Name(), "error", err)
			}
		}
	}
}
