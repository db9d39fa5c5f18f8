package agent

import (
	"net/http"
	"strconv"

	"github.com/drover-io/drover/command/agent/httpserver"
)

// parseEvalPriority reads ?eval_priority=, the priority a job stop's
// evaluation gets instead of the job's; 0 when absent. Its range is the
// server's to check.
func parseEvalPriority(r *http.Request) (int, error) {
	v := r.URL.Query().Get("eval_priority")
	if v == "" {
		return 0, nil
	}
	p, err := strconv.Atoi(v)
	if err != nil {
		return 0, httpserver.BadRequest("invalid eval_priority %q: must be an integer from 1 to 100", v)
	}
	return p, nil
}
