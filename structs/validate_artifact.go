package structs

import (
	"encoding/hex"
	"fmt"
	"maps"
	"net/url"
	"path"
	"slices"
	"strings"
)

// An artifact's rules, checked twice: by the server when the job is
// submitted, so that an artifact the client would refuse is a 400 naming
// the task, the artifact and the field; and by the client after it has
// interpolated the artifact, with the same functions. Parts that are still
// to be interpolated (${...}) when the server sees them are left to the
// client.

// Artifact options the client honours (an artifact block's `options`).
const (
	ArtifactOptionChecksum = "checksum"
	ArtifactOptionArchive  = "archive"
)

// artifactChecksumSizes are the checksum types the client verifies, with
// their digests' sizes in bytes.
var artifactChecksumSizes = map[string]int{"md5": 16, "sha1": 20, "sha256": 32, "sha512": 64}

// Values of the archive option, besides "" (unpack by the file name).
const (
	ArtifactArchiveNever = "false"
	ArtifactArchiveTar   = "tar"
	ArtifactArchiveTarGz = "tar.gz"
	ArtifactArchiveZip   = "zip"
)

// artifactArchiveValues maps each value the archive option takes to the
// kind it names.
var artifactArchiveValues = map[string]string{
	"false": ArtifactArchiveNever, "tar": ArtifactArchiveTar,
	"tar.gz": ArtifactArchiveTarGz, "tgz": ArtifactArchiveTarGz, "zip": ArtifactArchiveZip,
}

// absoluteTaskVars are the task environment's variables that hold
// absolute paths: a destination starting with one would leave the task
// directory's tree once interpolated.
var absoluteTaskVars = []string{"NOMAD_ALLOC_DIR", "NOMAD_TASK_DIR", "NOMAD_SECRETS_DIR"}

// validate checks an artifact block. Its destination is relative to the
// task directory and may reach the shared alloc/ directory beside it, but
// not leave the allocation directory.
func (a *TaskArtifact) validate(p *problems, where string) {
	if a == nil {
		p.add(where, "Missing definition (null)")
		return
	}
	if a.GetterSource == "" {
		p.add(where, "Missing source")
	} else if err := CheckArtifactSource(a.GetterSource); err != nil {
		p.add(where, "source %q: %s", a.GetterSource, err)
	}
	switch a.GetterMode {
	case ArtifactModeAny, ArtifactModeFile, ArtifactModeDir:
	default:
		p.add(where, "mode must be one of %s, %s, %s, got %q", ArtifactModeAny, ArtifactModeFile, ArtifactModeDir, a.GetterMode)
	}
	if err := checkArtifactDest(a.RelativeDest); err != nil {
		p.add(where, "destination %q %s", a.RelativeDest, err)
	}
	for _, key := range slices.Sorted(maps.Keys(a.GetterOptions)) {
		if err := checkArtifactOption(key, a.GetterOptions[key]); err != nil {
			p.add(where, "options: %s", err)
		}
	}
}

// interpolated reports whether s holds a ${...} the client replaces.
func interpolated(s string) bool { return strings.Contains(s, "${") }

// CheckArtifactSource checks that source is a URL the client fetches:
// http or https, with a host and a file name. What is interpolated in it
// is not checked.
func CheckArtifactSource(source string) error {
	if getter, _, forced := strings.Cut(source, "::"); forced && !interpolated(getter) && !strings.Contains(getter, "/") {
		return fmt.Errorf("getter %q is not supported; the client fetches http and https URLs only", getter+"::")
	}
	scheme, rest, hasScheme := strings.Cut(source, "://")
	switch {
	case interpolated(scheme):
		return nil
	case !hasScheme:
		return fmt.Errorf("not a URL; the client fetches http and https URLs only, such as \"https://example.com/file.tar.gz\"")
	}
	switch strings.ToLower(scheme) {
	case "http", "https":
	default:
		return fmt.Errorf("scheme %q is not supported; the client fetches http and https URLs only", scheme)
	}
	if interpolated(rest) {
		return nil
	}
	u, err := url.Parse(source)
	if err != nil {
		return fmt.Errorf("not a valid URL: %w", err)
	}
	if u.Host == "" {
		return fmt.Errorf("has no host")
	}
	if base := path.Base(u.Path); base == "/" || base == "." || base == ".." {
		return fmt.Errorf("does not name a file")
	}
	return nil
}

// checkArtifactDest checks an artifact's destination, relative to the
// task directory: it may reach the rest of the allocation directory
// (../alloc/data), not leave it, and is not absolute.
func checkArtifactDest(dest string) error {
	for _, v := range absoluteTaskVars {
		if strings.HasPrefix(dest, "${"+v+"}") {
			return fmt.Errorf("starts with ${%s}, an absolute path: write it relative to the task directory (%q, %q)", v, "local/...", "../alloc/...")
		}
	}
	if path.IsAbs(dest) {
		return fmt.Errorf("must be relative to the task directory (%q, %q)", "local/...", "../alloc/...")
	}
	const allocDir, taskDir = "alloc", "alloc/task"
	if d := path.Join(taskDir, dest); d != allocDir && !strings.HasPrefix(d, allocDir+"/") {
		return fmt.Errorf("escapes the allocation directory")
	}
	return nil
}

// checkArtifactOption checks one of an artifact's options: one the client
// honours, with a value it accepts.
func checkArtifactOption(key, value string) error {
	var err error
	switch key {
	case ArtifactOptionChecksum:
		if !interpolated(value) {
			_, _, err = ParseArtifactChecksum(value)
		}
	case ArtifactOptionArchive:
		if !interpolated(value) {
			_, err = ParseArtifactArchive(value)
		}
	default:
		return fmt.Errorf("%q is not supported; the client reads %s and %s only", key, ArtifactOptionChecksum, ArtifactOptionArchive)
	}
	return err
}

// ParseArtifactChecksum parses the checksum option, "<type>:<hex digest>".
func ParseArtifactChecksum(opt string) (kind string, digest []byte, err error) {
	kind, hexDigest, ok := strings.Cut(opt, ":")
	if !ok {
		return "", nil, fmt.Errorf("checksum %q: want <type>:<hex digest>", opt)
	}
	size, ok := artifactChecksumSizes[kind]
	if !ok {
		return "", nil, fmt.Errorf("checksum type %q is not supported (use one of %s)",
			kind, strings.Join(slices.Sorted(maps.Keys(artifactChecksumSizes)), ", "))
	}
	digest, err = hex.DecodeString(hexDigest)
	if err != nil {
		return "", nil, fmt.Errorf("checksum %q: digest is not hex: %w", opt, err)
	}
	if len(digest) != size {
		return "", nil, fmt.Errorf("checksum %q: a %s digest has %d hex digits, got %d", opt, kind, 2*size, len(hexDigest))
	}
	return kind, digest, nil
}

// ParseArtifactArchive parses the archive option: "" (unpack by the file
// name), "false" (never unpack), or the kind of archive the file is. It
// returns "" or one of the ArtifactArchive constants.
func ParseArtifactArchive(opt string) (string, error) {
	if opt == "" {
		return "", nil
	}
	kind, ok := artifactArchiveValues[strings.ToLower(opt)]
	if !ok {
		return "", fmt.Errorf("archive option %q is not supported (use false, tar, tar.gz, tgz or zip)", opt)
	}
	return kind, nil
}
