package agent

import (
	"errors"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/drover-io/drover/client/allocdir"
	"github.com/drover-io/drover/client/allocrunner"
	"github.com/drover-io/drover/command/agent/httpserver"
)

// allocFileInfo describes one file of an allocation's directory, as
// Nomad's /v1/client/fs endpoints do.
type allocFileInfo struct {
	Name        string
	IsDir       bool
	Size        int64
	FileMode    string
	ModTime     time.Time
	ContentType string
}

func fileInfo(fi fs.FileInfo) *allocFileInfo {
	info := &allocFileInfo{
		Name:     fi.Name(),
		IsDir:    fi.IsDir(),
		Size:     fi.Size(),
		FileMode: fi.Mode().String(),
		ModTime:  fi.ModTime(),
	}
	if !fi.IsDir() {
		info.ContentType = mime.TypeByExtension(filepath.Ext(fi.Name()))
	}
	return info
}

// allocPath turns the ?path= of a request into a path relative to the
// allocation directory. "/" and "" are the directory itself; a path that
// climbs out of it is refused.
func allocPath(r *http.Request) (string, error) {
	p := r.URL.Query().Get("path")
	if strings.ContainsRune(p, 0) {
		return "", httpserver.BadRequest("invalid path: contains a NUL byte")
	}
	rel := strings.TrimLeft(p, "/")
	if rel == "" {
		return ".", nil
	}
	rel = path.Clean(rel)
	if !filepath.IsLocal(rel) {
		return "", httpserver.BadRequest("path %q leaves the allocation directory", p)
	}
	return rel, nil
}

// fsPathError gives a failed file system access its status.
func fsPathError(rel string, err error) error {
	var unreadable *allocdir.UnreadableError
	switch {
	case errors.As(err, &unreadable):
		return httpserver.BadRequest("%s", unreadable.Error())
	case errors.Is(err, fs.ErrNotExist):
		return httpserver.NotFound("file %q not found in the allocation directory", rel)
	case strings.Contains(err.Error(), "path escapes from parent"):
		return httpserver.BadRequest("path %q leaves the allocation directory", rel)
	case errors.Is(err, fs.ErrPermission):
		return httpserver.NewError(http.StatusForbidden, "path %q: permission denied", rel)
	}
	return err
}

// allocReader opens the directory of an allocation on this agent's client
// for reading (see allocdir.Reader: regular files and directories only,
// nothing outside the directory).
func allocReader(ar *allocrunner.AllocRunner) (*allocdir.Reader, error) {
	r, err := allocdir.OpenReader(ar.AllocDir().AllocDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, httpserver.NotFound("allocation directory not found: it has not been created or was removed")
	}
	return r, err
}

// fsRequest resolves a /v1/client/fs request: a reader of the
// allocation's directory and the ?path= inside it. A nil reader with a nil
// error means the request was forwarded to the allocation's node and
// answered.
func (s *HTTPServer) fsRequest(w http.ResponseWriter, r *http.Request) (*allocdir.Reader, string, error) {
	ar, err := s.clientAlloc(w, r)
	if ar == nil {
		return nil, "", err
	}
	rel, err := allocPath(r)
	if err != nil {
		return nil, "", err
	}
	reader, err := allocReader(ar)
	if err != nil {
		return nil, "", err
	}
	return reader, rel, nil
}

// fsList serves GET /v1/client/fs/ls/:alloc?path=. A path that is not a
// directory lists itself, described without being opened.
func (s *HTTPServer) fsList(w http.ResponseWriter, r *http.Request) (any, error) {
	reader, rel, err := s.fsRequest(w, r)
	if reader == nil {
		return nil, err
	}
	defer reader.Close()
	st, err := reader.Stat(rel)
	if err != nil {
		return nil, fsPathError(rel, err)
	}
	if !st.IsDir() {
		return []*allocFileInfo{fileInfo(st)}, nil
	}
	entries, err := reader.ReadDir(rel)
	if err != nil {
		return nil, fsPathError(rel, err)
	}
	out := make([]*allocFileInfo, 0, len(entries))
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		out = append(out, fileInfo(fi))
	}
	return out, nil
}

// fsStat serves GET /v1/client/fs/stat/:alloc?path=. It reads nothing, so
// it describes a file of any kind.
func (s *HTTPServer) fsStat(w http.ResponseWriter, r *http.Request) (any, error) {
	reader, rel, err := s.fsRequest(w, r)
	if reader == nil {
		return nil, err
	}
	defer reader.Close()
	fi, err := reader.Stat(rel)
	if err != nil {
		return nil, fsPathError(rel, err)
	}
	return fileInfo(fi), nil
}

// fsCat serves GET /v1/client/fs/cat/:alloc?path=: the file's contents.
func (s *HTTPServer) fsCat(w http.ResponseWriter, r *http.Request) (any, error) {
	reader, rel, err := s.fsRequest(w, r)
	if reader == nil {
		return nil, err
	}
	defer reader.Close()
	f, st, err := reader.Open(rel)
	if err != nil {
		return nil, fsPathError(rel, err)
	}
	defer f.Close()
	if !st.Mode().IsRegular() {
		return nil, httpserver.BadRequest("path %q is not a file", rel)
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	if err := sendFile(r.Context(), w, f, fsIOTimeout); err != nil && r.Context().Err() == nil {
		s.logger.Warn("send file", "path", rel, "error", err)
	}
	return nil, nil
}
