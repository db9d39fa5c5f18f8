package agent

import (
	"errors"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
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
		return "", badRequest("invalid path: contains a NUL byte")
	}
	rel := strings.TrimLeft(p, "/")
	if rel == "" {
		return ".", nil
	}
	rel = path.Clean(rel)
	if !filepath.IsLocal(rel) {
		return "", badRequest("path %q leaves the allocation directory", p)
	}
	return rel, nil
}

// openAllocRoot opens the allocation directory as a root: every path is
// resolved inside it, and one that leaves it, by ".." or by a symbolic
// link, is refused.
func openAllocRoot(dir string) (*os.Root, error) {
	root, err := os.OpenRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, notFound("allocation directory not found: it has not been created or was removed")
	}
	return root, err
}

// fsPathError gives a failed file system access its status.
func fsPathError(rel string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return notFound("file %q not found in the allocation directory", rel)
	case strings.Contains(err.Error(), "path escapes from parent"):
		return badRequest("path %q leaves the allocation directory", rel)
	case errors.Is(err, fs.ErrPermission):
		return newHTTPError(http.StatusForbidden, "path %q: permission denied", rel)
	}
	return err
}

// allocRoot resolves a /v1/client/fs request: the allocation directory
// opened as a root and the ?path= inside it. A nil root with a nil error
// means the request was forwarded to the allocation's node and answered.
func (s *HTTPServer) allocRoot(w http.ResponseWriter, r *http.Request) (*os.Root, string, error) {
	ar, err := s.clientAlloc(w, r)
	if ar == nil {
		return nil, "", err
	}
	rel, err := allocPath(r)
	if err != nil {
		return nil, "", err
	}
	root, err := openAllocRoot(ar.AllocDir().AllocDir)
	if err != nil {
		return nil, "", err
	}
	return root, rel, nil
}

// openInRoot opens rel inside root and stats it; the caller closes the
// file.
func openInRoot(root *os.Root, rel string) (*os.File, fs.FileInfo, error) {
	f, err := root.Open(rel)
	if err != nil {
		return nil, nil, fsPathError(rel, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fsPathError(rel, err)
	}
	return f, st, nil
}

// fsList serves GET /v1/client/fs/ls/:alloc?path=.
func (s *HTTPServer) fsList(w http.ResponseWriter, r *http.Request) (any, error) {
	root, rel, err := s.allocRoot(w, r)
	if root == nil {
		return nil, err
	}
	defer root.Close()
	dir, st, err := openInRoot(root, rel)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	if !st.IsDir() {
		return []*allocFileInfo{fileInfo(st)}, nil
	}
	entries, err := dir.ReadDir(-1)
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

// fsStat serves GET /v1/client/fs/stat/:alloc?path=.
func (s *HTTPServer) fsStat(w http.ResponseWriter, r *http.Request) (any, error) {
	root, rel, err := s.allocRoot(w, r)
	if root == nil {
		return nil, err
	}
	defer root.Close()
	fi, err := root.Stat(rel)
	if err != nil {
		return nil, fsPathError(rel, err)
	}
	return fileInfo(fi), nil
}

// fsCat serves GET /v1/client/fs/cat/:alloc?path=: the file's contents.
func (s *HTTPServer) fsCat(w http.ResponseWriter, r *http.Request) (any, error) {
	root, rel, err := s.allocRoot(w, r)
	if root == nil {
		return nil, err
	}
	defer root.Close()
	f, st, err := openInRoot(root, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if !st.Mode().IsRegular() {
		return nil, badRequest("path %q is not a file", rel)
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	if _, err := io.Copy(w, f); err != nil && r.Context().Err() == nil {
		s.logger.Warn("send file", "path", rel, "error", err)
	}
	return nil, nil
}
