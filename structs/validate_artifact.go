package structs

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"maps"
	"net/url"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// An artifact's rules, checked twice: by the server when the job is
// submitted, so that an artifact the client would refuse is a 400 naming
// the task, the artifact and the field; and by the client after it has
// interpolated the artifact, with the same functions. Parts that are still
// to be interpolated (${...}) when the server sees them are left to the
// client.

// Artifact options the client honours (an artifact block's `options`),
// as go-getter reads them from the source's query.
const (
	ArtifactOptionChecksum = "checksum"
	ArtifactOptionArchive  = "archive"
	ArtifactOptionRef      = "ref"
	ArtifactOptionDepth    = "depth"
	ArtifactOptionSSHKey   = "sshkey"
	ArtifactOptionFilename = "filename"
)

// artifactS3Options are the options an s3 source takes: its credentials
// (which the client requires), region and object version.
var artifactS3Options = []string{"aws_access_key_id", "aws_access_key_secret", "aws_access_token", "region", "version"}

// artifactChecksumSizes are the checksum types the client verifies, with
// their digests' sizes in bytes.
var artifactChecksumSizes = map[string]int{"md5": 16, "sha1": 20, "sha256": 32, "sha512": 64}

// ArtifactArchiveNever is the archive option that keeps an archive
// packed.
const ArtifactArchiveNever = "false"

// ArtifactArchiveKinds are the archive option's values besides "false":
// the kinds the client unpacks, named as go-getter names them; "" unpacks
// by the file name's extension. xz is not among them (see the client's
// archive.go).
var ArtifactArchiveKinds = []string{
	"tar", "tar.gz", "tgz", "tar.bz2", "tbz2", "tar.zst", "tzst", "zip", "gz", "bz2", "zst",
}

// artifactGetters are the getters a source may force ("git::...") or
// name as its scheme, with what each fetches.
var artifactGetters = map[string]bool{"http": true, "https": true, "git": true, "s3": true}

// absoluteTaskVars are the task environment's variables that hold
// absolute paths, with where each is relative to the task directory: a
// destination may start with one, as in Nomad.
var absoluteTaskVars = map[string]string{"NOMAD_ALLOC_DIR": "../alloc", "NOMAD_TASK_DIR": "local", "NOMAD_SECRETS_DIR": "secrets"}

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
	} else if err := CheckArtifactSource(a.GetterSource, a.GetterOptions); err != nil {
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
		if err := CheckArtifactOption(key, a.GetterOptions[key]); err != nil {
			p.add(where, "options: %s", err)
		}
	}
}

// interpolated reports whether s holds a ${...} the client replaces.
func interpolated(s string) bool { return strings.Contains(s, "${") }

// supportedSources says what a source may be, for error messages.
const supportedSources = "the client fetches http(s) URLs, git (git::URL, git@host:path, github.com/...), " +
	"and s3 objects with their credentials"

// CheckArtifactSource checks that source, with the artifact's options,
// is one the client fetches, as go-getter reads it: an http(s) URL, a
// git repository (forced with git::, a git@host:path address, or a
// github.com, gitlab.com path), or an S3 object with its credentials.
// Local paths and the file and hg getters are refused: a job must not
// read the client's own files; gcs too (errGCS). What is interpolated in it is
// not checked.
func CheckArtifactSource(source string, opts map[string]string) error {
	getter, rest, forced := strings.Cut(source, "::")
	if !forced || strings.Contains(getter, "/") {
		getter, rest, forced = "", source, false
	}
	if interpolated(getter) {
		return nil
	}
	if strings.EqualFold(getter, "gcs") {
		return errGCS
	}
	if forced && !artifactGetters[strings.ToLower(getter)] {
		return fmt.Errorf("getter %q is not supported; %s", getter+"::", supportedSources)
	}
	getter = strings.ToLower(getter)
	scheme, _, hasScheme := strings.Cut(rest, "://")
	switch {
	case interpolated(scheme):
		return nil
	case !hasScheme:
		return checkSchemelessSource(getter, rest)
	}
	scheme = strings.ToLower(scheme)
	switch {
	case getter == "git" && (scheme == "ssh" || scheme == "git"):
	case scheme == "http" || scheme == "https":
	case !forced && scheme == "gcs":
		return errGCS
	case !forced && (scheme == "git" || scheme == "s3"):
		getter = scheme
	default:
		return fmt.Errorf("scheme %q is not supported; %s", scheme, supportedSources)
	}
	if interpolated(rest) {
		return nil
	}
	u, err := url.Parse(rest)
	if err != nil {
		return fmt.Errorf("not a valid URL: %w", err)
	}
	if u.Host == "" {
		return fmt.Errorf("has no host")
	}
	switch getter {
	case "":
		// A plain http(s) URL fetches one file (or an archive).
		if base := path.Base(u.Path); base == "/" || base == "." || base == ".." {
			return fmt.Errorf("does not name a file")
		}
	case "s3":
		return checkS3Credentials(u.Query(), opts)
	}
	return nil
}

// checkSchemelessSource checks a source without a scheme: one that
// go-getter's detectors turn into a git or s3 URL.
func checkSchemelessSource(getter, src string) error {
	host, _, _ := strings.Cut(src, "/")
	switch {
	case interpolated(host):
		return nil
	case getter == "git" || getter == "":
		if user, hostPath, ok := strings.Cut(src, "@"); ok && !strings.Contains(user, "/") && strings.Contains(hostPath, ":") {
			return nil // git@host:path, git over ssh
		}
	}
	switch {
	case getter == "" && (host == "github.com" || host == "gitlab.com"):
		if strings.Count(strings.Trim(strings.SplitN(src, "?", 2)[0], "/"), "/") < 2 {
			return fmt.Errorf("a %s source names a repository: %s/<owner>/<repository>", host, host)
		}
		return nil
	case (getter == "" || getter == "s3") && strings.Contains(host, ".amazonaws.com"):
		q := url.Values{}
		if _, query, ok := strings.Cut(src, "?"); ok {
			q, _ = url.ParseQuery(query)
		}
		return checkS3Credentials(q, nil)
	case getter == "" && strings.HasSuffix(host, "googleapis.com"):
		return errGCS
	}
	return fmt.Errorf("not a URL nor a source the client recognises; %s, such as \"https://example.com/file.tar.gz\" or \"git::https://example.com/repo.git?ref=v1\"", supportedSources)
}

// errGCS refuses a gcs source: go-getter's GCS getter takes no
// credentials of the job's, only the client's own (its environment, its
// metadata server), which a job must not borrow.
var errGCS = fmt.Errorf("gcs sources are not supported: they are fetched with the client's own Google credentials, which the client does not lend a job; fetch the object over https with a signed URL")

// checkS3Credentials checks that an s3 source carries its credentials,
// in its query or its options: the client never lends a job its own.
func checkS3Credentials(q url.Values, opts map[string]string) error {
	has := func(k string) bool { return q.Get(k) != "" || opts[k] != "" }
	if has("aws_profile") {
		return fmt.Errorf("aws_profile is not supported: it would read the client's own AWS credentials")
	}
	if !has("aws_access_key_id") || !has("aws_access_key_secret") {
		return fmt.Errorf("an s3 source needs its credentials, aws_access_key_id and aws_access_key_secret, in its query or options: the client does not lend a job its own")
	}
	return nil
}

// checkArtifactDest checks an artifact's destination: relative to the
// task directory, or absolute, which Nomad reads as within the task
// directory ("/local/x"), or starting with ${NOMAD_ALLOC_DIR},
// ${NOMAD_TASK_DIR} or ${NOMAD_SECRETS_DIR}. It may reach the rest of the
// allocation directory (../alloc/data), not leave it.
func checkArtifactDest(dest string) error {
	rel := ArtifactDestInTaskDir(dest)
	if interpolated(rel) && !strings.HasPrefix(rel, "${") {
		// A variable in the middle may hold "..": the client checks.
		rel = strings.SplitN(rel, "${", 2)[0]
	}
	const allocDir, taskDir = "alloc", "alloc/task"
	if d := path.Join(taskDir, rel); d != allocDir && !strings.HasPrefix(d, allocDir+"/") {
		return fmt.Errorf("escapes the allocation directory")
	}
	return nil
}

// ArtifactDestInTaskDir rewrites a destination relative to the task
// directory, as Nomad places it: a leading ${NOMAD_ALLOC_DIR},
// ${NOMAD_TASK_DIR} or ${NOMAD_SECRETS_DIR} becomes the directory it
// names, and an absolute path is taken from the task directory.
func ArtifactDestInTaskDir(dest string) string {
	for v, rel := range absoluteTaskVars {
		if after, ok := strings.CutPrefix(dest, "${"+v+"}"); ok {
			return rel + "/" + strings.TrimPrefix(after, "/")
		}
	}
	if strings.HasPrefix(dest, "/") {
		return "." + dest
	}
	return dest
}

// CheckArtifactOption checks one of an artifact's options: one the client
// honours, with a value it accepts.
func CheckArtifactOption(key, value string) error {
	if interpolated(value) {
		return nil
	}
	var err error
	switch key {
	case ArtifactOptionChecksum:
		_, _, err = ParseArtifactChecksum(value)
	case ArtifactOptionArchive:
		_, err = ParseArtifactArchive(value)
	case ArtifactOptionDepth:
		if n, perr := strconv.Atoi(value); perr != nil || n < 0 {
			err = fmt.Errorf("depth %q: want a number of commits, 0 or more", value)
		}
	case ArtifactOptionSSHKey:
		if _, derr := base64.StdEncoding.DecodeString(value); derr != nil {
			err = fmt.Errorf("sshkey: want the private key in base64: %w", derr)
		}
	case ArtifactOptionFilename:
		if value == "" || !filepath.IsLocal(value) || strings.ContainsRune(value, '/') {
			err = fmt.Errorf("filename %q: want a file name", value)
		}
	case ArtifactOptionRef:
	default:
		if !slices.Contains(artifactS3Options, key) {
			return fmt.Errorf("%q is not supported; the client reads %s, %s, %s, %s, %s, %s and the s3 options %s",
				key, ArtifactOptionChecksum, ArtifactOptionArchive, ArtifactOptionRef, ArtifactOptionDepth,
				ArtifactOptionSSHKey, ArtifactOptionFilename, strings.Join(artifactS3Options, ", "))
		}
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
// name), "false" (never unpack), or the kind of archive the file is, one
// of ArtifactArchiveKinds. It returns the option in lower case.
func ParseArtifactArchive(opt string) (string, error) {
	kind := strings.ToLower(opt)
	if kind == "" || kind == ArtifactArchiveNever || slices.Contains(ArtifactArchiveKinds, kind) {
		return kind, nil
	}
	return "", fmt.Errorf("archive option %q is not supported (use false or one of %s)", opt, strings.Join(ArtifactArchiveKinds, ", "))
}
