package agent

import (
	"net/http"

	"github.com/drover-io/drover/ui"
)

// registerUI serves the web UI under /ui/ and sends a browser that asks
// for / there. The UI reads the same HTTP API as any client.
func (s *HTTPServer) registerUI() {
	s.mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, ui.Prefix, http.StatusTemporaryRedirect)
	})
	h, err := ui.New()
	if err != nil {
		// Only a broken build gets here; the API goes on without the UI.
		s.logger.Error("web UI unavailable", "error", err)
		s.mux.HandleFunc(ui.Prefix, func(w http.ResponseWriter, r *http.Request) {
			writeErrorReason(w, http.StatusInternalServerError, "web UI unavailable: "+oneLine(err.Error()))
		})
		return
	}
	s.mux.Handle(ui.Prefix, h)
}
