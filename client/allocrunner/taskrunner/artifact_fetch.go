package taskrunner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	getter "github.com/hashicorp/go-getter/v2"

	"github.com/drover-io/drover/client/allocdir"
	"github.com/drover-io/drover/internal/netguard"
	"github.com/drover-io/drover/structs"
)

// fetchArtifact fetches one artifact with go-getter into a private
// staging directory beside the allocation directories, where no task can
// reach, then places what it fetched at its destination through the
// allocation directory's root: nothing is ever written outside the
// allocation directory, whatever links a task left on the way. The
// destination is relative to the task directory and may reach the rest
// of the allocation directory (../alloc/data). With chown, what is
// placed becomes owner's, the task's user (nil: the agent's).
func fetchArtifact(ctx context.Context, f *artifactFetcher, art *structs.TaskArtifact, env *taskEnv, dir *allocdir.TaskDir, owner *allocdir.Owner) error {
	source := env.replace(art.GetterSource)
	opts := make(map[string]string, len(art.GetterOptions))
	for k, v := range art.GetterOptions {
		opts[k] = env.replace(v)
	}
	if err := structs.CheckArtifactSource(source, opts); err != nil {
		return fmt.Errorf("source %q: %w", source, err)
	}
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		if err := structs.CheckArtifactOption(k, opts[k]); err != nil {
			return fmt.Errorf("options: %w", err)
		}
	}
	mode := art.GetterMode
	if mode == "" {
		mode = structs.ArtifactModeAny
	}
	src, err := getterSource(source, opts, mode)
	if err != nil {
		return err
	}
	dest, err := artifactDest(art, env, dir)
	if err != nil {
		return err
	}
	root, err := os.OpenRoot(dir.AllocDir)
	if err != nil {
		return fmt.Errorf("open allocation directory: %w", err)
	}
	defer root.Close()

	stage, err := os.MkdirTemp(filepath.Dir(dir.AllocDir), ".artifact-*")
	if err != nil {
		return fmt.Errorf("create staging directory: %w", err)
	}
	defer os.RemoveAll(stage)
	staged := filepath.Join(stage, "out")
	headers := make(http.Header, len(art.GetterHeaders))
	for k, v := range art.GetterHeaders {
		headers.Set(k, env.replace(v))
	}
	client := &getter.Client{
		Getters:         f.getters(art.GetterInsecure, headers),
		Decompressors:   artifactDecompressors(f.config),
		DisableSymlinks: true,
	}
	req := &getter.Request{Src: src, Dst: staged, Pwd: stage, GetMode: getterModes[mode]}
	if _, err := client.Get(ctx, req); err != nil {
		return fetchError(err, opts[structs.ArtifactOptionChecksum])
	}
	placed, err := place(root, staged, dest)
	if err != nil {
		return err
	}
	if art.Chown && owner != nil {
		for _, p := range placed {
			if err := root.Lchown(p, owner.UID, owner.GID); err != nil {
				return fmt.Errorf("chown %s: %w", p, err)
			}
		}
	}
	return nil
}

// getterModes are go-getter's modes for the artifact's.
var getterModes = map[string]getter.Mode{
	structs.ArtifactModeAny:  getter.ModeAny,
	structs.ArtifactModeFile: getter.ModeFile,
	structs.ArtifactModeDir:  getter.ModeDir,
}

// getterSource is the source as go-getter takes it: the artifact's
// options join the source's query, as Nomad passes them. In file mode an
// archive of many files stays packed unless the archive option says
// otherwise; a compressed file (.gz, .bz2, .zst) is decompressed. In dir
// mode a plain http(s) file must be an archive: a directory cannot be
// fetched over http.
func getterSource(source string, opts map[string]string, mode string) (string, error) {
	base, query, _ := strings.Cut(source, "?")
	q, err := url.ParseQuery(query)
	if err != nil {
		return "", fmt.Errorf("source %q: query: %w", source, err)
	}
	for k, v := range opts {
		q.Set(k, v)
	}
	if a := q.Get(structs.ArtifactOptionArchive); a != "" {
		q.Set(structs.ArtifactOptionArchive, strings.ToLower(a))
	}
	archive := q.Get(structs.ArtifactOptionArchive)
	switch mode {
	case structs.ArtifactModeFile:
		if kind := archiveKinds[archiveByName(base)]; archive == "" && (kind == "zip" || kind.isTar()) {
			q.Set(structs.ArtifactOptionArchive, structs.ArtifactArchiveNever)
		}
	case structs.ArtifactModeDir:
		if plainHTTP(base) && (archive == structs.ArtifactArchiveNever || archive == "" && archiveByName(base) == "") {
			return "", fmt.Errorf("mode %q needs an archive to unpack, and %s is not one", mode, path.Base(base))
		}
	}
	if len(q) == 0 {
		return base, nil
	}
	return base + "?" + q.Encode(), nil
}

// plainHTTP reports whether source is an http(s) URL no getter is forced
// on.
func plainHTTP(source string) bool {
	s := strings.ToLower(source)
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

// archiveByName is the archive kind go-getter picks by the file's name:
// the longest extension it knows, or "".
func archiveByName(source string) string {
	best := ""
	for name := range archiveKinds {
		if strings.HasSuffix(source, "."+name) && len(name) > len(best) {
			best = name
		}
	}
	return best
}

// fetchError is the error of a fetch that failed, in the words the task
// event shows: a refusal by the address policy names the setting that
// refused it, a checksum mismatch shows both sums.
func fetchError(err error, checksumOpt string) error {
	if refused := (*netguard.RefusedError)(nil); errors.As(err, &refused) {
		return fmt.Errorf("download: %w", refusal(refused))
	}
	if unreachable := (*netguard.UnreachableError)(nil); errors.As(err, &unreachable) {
		return fmt.Errorf("download: %w", unreachable)
	}
	if mismatch := (*getter.ChecksumError)(nil); errors.As(err, &mismatch) {
		kind, _, _ := strings.Cut(checksumOpt, ":")
		return fmt.Errorf("checksum mismatch: want %s:%x, got %s:%x", kind, mismatch.Expected, kind, mismatch.Actual)
	}
	if errors.Is(err, ErrArchiveLimit) || errors.Is(err, ErrArtifactTooLarge) {
		return err
	}
	return fmt.Errorf("download: %w", err)
}

// artifactDest is the artifact's interpolated destination, relative to
// the allocation directory. Nomad's forms are read as Nomad reads them:
// ${NOMAD_ALLOC_DIR}, ${NOMAD_TASK_DIR} and ${NOMAD_SECRETS_DIR} at the
// start name those directories, and an absolute path is within the task
// directory ("/local/x" is local/x).
func artifactDest(art *structs.TaskArtifact, env *taskEnv, dir *allocdir.TaskDir) (string, error) {
	raw := art.RelativeDest
	if raw == "" {
		raw = structs.DefaultArtifactDest
	}
	dest := env.replace(structs.ArtifactDestInTaskDir(raw))
	if filepath.IsAbs(dest) {
		// A variable held a host path: within the allocation directory
		// it is kept, as Nomad does; anything else is read from the task
		// directory.
		if rel, err := filepath.Rel(dir.AllocDir, filepath.Clean(dest)); err == nil && filepath.IsLocal(rel) {
			return rel, nil
		}
		dest = "." + dest
	}
	rel, err := dir.Resolve(filepath.Clean(dest))
	if err != nil {
		return "", fmt.Errorf("destination %q: %w", raw, err)
	}
	return rel, nil
}

// place moves what go-getter fetched to staged (a file, or a directory
// tree) to dest, relative to root, and returns the paths it wrote,
// relative to root. A tree merges into what dest holds.
func place(root *os.Root, staged, dest string) ([]string, error) {
	fi, err := os.Lstat(staged)
	if err != nil {
		return nil, fmt.Errorf("read fetched artifact: %w", err)
	}
	if fi.Mode().IsRegular() {
		return []string{dest}, placeStaged(root, staged, dest, fi.Mode().Perm())
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("fetched artifact is a %s, neither a file nor a directory", fi.Mode().Type())
	}
	// Check the whole tree first: a tree that cannot be placed entire is
	// not placed at all.
	if err := checkTree(staged); err != nil {
		return nil, err
	}
	var placed []string
	err = filepath.WalkDir(staged, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(staged, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dest, rel)
		if !filepath.IsLocal(target) {
			return fmt.Errorf("destination %q: %w", target, allocdir.ErrOutsideDir)
		}
		placed = append(placed, target)
		return placeEntry(root, p, rel, target, d)
	})
	return placed, err
}

// checkTree checks that every entry of a fetched tree can be placed:
// directories, regular files, and links that point within the tree.
func checkTree(staged string) error {
	return filepath.WalkDir(staged, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(staged, p)
		if err != nil {
			return err
		}
		switch t := d.Type(); {
		case t.IsDir(), t.IsRegular():
			return nil
		case t&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return checkLink(rel, link)
		default:
			return fmt.Errorf("entry %q: a %s is not placed", rel, t)
		}
	})
}

// checkLink refuses a link, at rel in a tree, whose target is absolute
// or climbs out of the tree.
func checkLink(rel, link string) error {
	if filepath.IsAbs(link) || !filepath.IsLocal(filepath.Join(filepath.Dir(rel), link)) {
		return fmt.Errorf("entry %q: link target %q: %w", rel, link, allocdir.ErrOutsideDir)
	}
	return nil
}

// placeEntry places one entry of a fetched tree at target.
func placeEntry(root *os.Root, p, rel, target string, d fs.DirEntry) error {
	info, err := d.Info()
	if err != nil {
		return err
	}
	switch {
	case d.IsDir():
		if err := root.MkdirAll(target, info.Mode().Perm()|0o700); err != nil {
			return fmt.Errorf("create %s: %w", target, err)
		}
		return nil
	case info.Mode().IsRegular():
		return placeStaged(root, p, target, info.Mode().Perm())
	case info.Mode()&fs.ModeSymlink != 0:
		link, err := os.Readlink(p)
		if err != nil {
			return err
		}
		// A link may point within the artifact only.
		if err := checkLink(rel, link); err != nil {
			return err
		}
		if err := root.Remove(target); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("replace %s: %w", target, err)
		}
		return root.Symlink(link, target)
	}
	return fmt.Errorf("entry %q: a %s is not placed", rel, info.Mode().Type())
}

// placeStaged places the staged file src at dest, relative to root: by a
// rename where the staging directory and dest share a filesystem, else
// by a copy.
func placeStaged(root *os.Root, src, dest string, perm fs.FileMode) error {
	if !filepath.IsLocal(dest) {
		return fmt.Errorf("destination %q: %w", dest, allocdir.ErrOutsideDir)
	}
	if err := root.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return fmt.Errorf("create destination: %w", err)
	}
	moved, err := moveInto(root, src, dest)
	if err != nil {
		return fmt.Errorf("write %s: %w", dest, err)
	}
	if moved {
		return nil
	}
	file, err := os.Open(src)
	if err != nil {
		return err
	}
	defer file.Close()
	return placeFile(root, file, dest, perm)
}

// placeFile copies the download to dest, relative to root: into a new
// file beside it, then renamed over it. Whatever a task left at dest (a
// named pipe, a device, a link) is replaced, never opened.
func placeFile(root *os.Root, download *os.File, dest string, perm fs.FileMode) error {
	if !filepath.IsLocal(dest) {
		return fmt.Errorf("destination %q: %w", dest, allocdir.ErrOutsideDir)
	}
	if err := root.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return fmt.Errorf("create destination: %w", err)
	}
	if _, err := download.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("read download: %w", err)
	}
	dst, name, err := createTemp(root, filepath.Dir(dest))
	if err != nil {
		return fmt.Errorf("create %s: %w", dest, err)
	}
	_, err = io.Copy(dst, download)
	if err == nil {
		err = dst.Chmod(perm)
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(name, dest)
	}
	if err != nil {
		_ = root.Remove(name)
		return fmt.Errorf("write %s: %w", dest, err)
	}
	return nil
}

// createTemp makes a new file in dir, relative to root, and returns it
// and its path relative to root. O_EXCL makes a file or fails: it opens
// nothing that was there.
func createTemp(root *os.Root, dir string) (*os.File, string, error) {
	for range 100 {
		name := filepath.Join(dir, ".artifact-"+strconv.FormatUint(uint64(rand.Uint32()), 10))
		f, err := root.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, name, err
	}
	return nil, "", fs.ErrExist
}
