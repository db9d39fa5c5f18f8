// Package ui is Drover's web UI: server-rendered page shells (html/template)
// and a small plain-JavaScript program, embedded in the binary, that fills
// them from the public HTTP API and keeps them live from the event stream.
// The UI reads only what any API client can read, with the ACL token the
// user set on the token page (kept in the browser, never by the agent); it
// makes no request outside the agent's origin.
//
// The pages live at Nomad's UI paths, so the links that tools print for
// Nomad land: /ui/jobs, /ui/jobs/<id>@<namespace>, /ui/allocations/<id>,
// /ui/clients, /ui/clients/<id> and /ui/evaluations; /ui/settings/tokens
// is where a user sets the ACL token the script sends with every request.
package ui

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"strings"
)

//go:embed templates static
var files embed.FS

// Prefix is the path the UI is served under.
const Prefix = "/ui/"

// tokensPath is the token page, at Nomad's path: the only settings page.
const tokensPath = Prefix + "settings/tokens"

// pageData is what a page's template renders: the page's name, which the
// script picks its code by, and the object it shows.
type pageData struct {
	Page      string
	Title     string
	ID        string
	Namespace string
}

// Handler serves the UI under Prefix.
type Handler struct {
	pages  map[string]*template.Template
	static http.Handler
	mux    *http.ServeMux
}

// New parses the templates and returns the UI's handler.
func New() (*Handler, error) {
	h := &Handler{pages: map[string]*template.Template{}, mux: http.NewServeMux()}
	for _, name := range []string{"jobs", "job", "allocation", "clients", "client", "evaluations", "tokens", "notfound"} {
		t, err := template.ParseFS(files, "templates/layout.html", "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("parse UI page %s: %w", name, err)
		}
		h.pages[name] = t
	}
	static, err := fs.Sub(files, "static")
	if err != nil {
		return nil, fmt.Errorf("UI static files: %w", err)
	}
	h.static = http.StripPrefix(Prefix+"static/", http.FileServerFS(static))

	h.mux.HandleFunc("GET /ui/{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, Prefix+"jobs", http.StatusFound)
	})
	h.mux.HandleFunc("GET /ui/jobs", h.serve("jobs", "Jobs", nil))
	h.mux.HandleFunc("GET /ui/jobs/{id}", h.serve("job", "Job", jobRef))
	h.mux.HandleFunc("GET /ui/allocations/{id}", h.serve("allocation", "Allocation", plainRef))
	h.mux.HandleFunc("GET /ui/clients", h.serve("clients", "Clients", nil))
	h.mux.HandleFunc("GET /ui/clients/{id}", h.serve("client", "Client", plainRef))
	h.mux.HandleFunc("GET /ui/evaluations", h.serve("evaluations", "Evaluations", nil))
	h.mux.HandleFunc("GET "+tokensPath, h.serve("tokens", "ACL token", nil))
	for _, settings := range []string{"GET /ui/settings", "GET /ui/settings/{$}"} {
		h.mux.HandleFunc(settings, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, tokensPath, http.StatusFound)
		})
	}
	h.mux.HandleFunc("GET /ui/static/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		h.static.ServeHTTP(w, r)
	})
	h.mux.HandleFunc("/ui/", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed: the UI only reads", http.StatusMethodNotAllowed)
			return
		}
		h.render(w, http.StatusNotFound, "notfound", pageData{Page: "notfound", Title: "Not found", ID: r.URL.Path})
	})
	return h, nil
}

// ServeHTTP serves a UI request, with headers that keep the pages from
// loading anything from elsewhere or being framed.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	hdr.Set("Content-Security-Policy", "default-src 'self'; img-src 'self'; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Referrer-Policy", "same-origin")
	h.mux.ServeHTTP(w, r)
}

// ref reads the object a page shows from its path: its ID and namespace.
type ref func(id string) (string, string)

// plainRef is an ID as it is.
func plainRef(id string) (string, string) { return id, "" }

// jobRef reads Nomad's job reference, <id>@<namespace>; a bare ID is in
// the default namespace.
func jobRef(id string) (string, string) {
	if i := strings.LastIndex(id, "@"); i > 0 {
		return id[:i], id[i+1:]
	}
	return id, "default"
}

func (h *Handler) serve(name, title string, read ref) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		data := pageData{Page: name, Title: title}
		if read != nil {
			data.ID, data.Namespace = read(r.PathValue("id"))
			data.Title = title + " " + data.ID
		}
		h.render(w, http.StatusOK, name, data)
	}
}

// render writes a page whole, so that a template error is a clean 500.
func (h *Handler) render(w http.ResponseWriter, code int, name string, data pageData) {
	var buf bytes.Buffer
	if err := h.pages[name].ExecuteTemplate(&buf, "layout", data); err != nil {
		http.Error(w, "render UI page: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(code)
	w.Write(buf.Bytes())
}
