package agent

import (
	"net/http"

	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/ui"
)

// registerUI serves the web UI under /ui/ and sends a browser that asks
// for / there. The UI reads the same HTTP API as any client.
func (s *HTTPServer) registerUI() {
	s.Mount("GET /{$}", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, ui.Prefix, http.StatusTemporaryRedirect)
	}))
	h, err := ui.New()
	if err != nil {
		// Only a broken build gets here; the API goes on without the UI.
		s.logger.Error("web UI unavailable", "error", err)
		s.Mount(ui.Prefix, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			httpserver.WriteErrorReason(w, http.StatusInternalServerError, "web UI unavailable: "+httpserver.OneLine(err.Error()))
		}))
		return
	}
	s.Mount(ui.Prefix, h)
}
