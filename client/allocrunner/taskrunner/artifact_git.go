package taskrunner

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	getter "github.com/hashicorp/go-getter/v2"

	"github.com/drover-io/drover/internal/netguard"
)

// gitGetter clones a git repository for go-getter, with the options
// go-getter's git getter reads (ref, depth, sshkey), but under the
// client's rules, which go-getter's own cannot follow: it runs git with
// the agent's environment and git's own connections. Here git's
// environment is a minimal one plus the variables the operator lists
// (set_environment_variables); it reads no system or global git
// configuration (no credential helpers, no url rewrites of the agent's);
// it may use only the https, http, ssh and git protocols (no file:// or
// ext:: remotes, in submodules neither); and its http(s) connections go
// through the client's guard proxy, which checks every address against
// the address policy. ssh and git:// connections are checked before git
// runs, by the addresses the host resolves to.
type gitGetter struct {
	fetcher *artifactFetcher
	timeout time.Duration
	// env are the names of the agent's environment variables git gets.
	env []string
}

// gitDetectors turn a source without a scheme into a git URL, as
// go-getter's git getter does, less the bitbucket detector, which asks
// bitbucket's API, outside the address policy.
var gitDetectors = []getter.Detector{
	new(getter.GitHubDetector),
	new(getter.GitLabDetector),
	new(getter.GitDetector),
}

// Detect claims a source forced to git (git::...), a URL of the ssh or
// git scheme, and a source without a scheme the detectors read as git
// (github.com/org/repo, git@host:path).
func (g *gitGetter) Detect(req *getter.Request) (bool, error) {
	if req.Forced != "" && req.Forced != "git" {
		return false, nil
	}
	if u, err := url.Parse(req.Src); err == nil && u.Scheme != "" {
		return req.Forced == "git" || u.Scheme == "ssh" || u.Scheme == "git", nil
	}
	for _, d := range gitDetectors {
		src, ok, err := d.Detect(req.Src, req.Pwd)
		if err != nil {
			return true, err
		}
		if rest, isGit := strings.CutPrefix(src, "git::"); ok && isGit {
			req.Src = rest
			return true, nil
		}
	}
	return false, nil
}

func (g *gitGetter) Mode(context.Context, *url.URL) (getter.Mode, error) {
	return getter.ModeDir, nil
}

// GetFile clones the repository that holds the file the source names,
// beside req.Dst, and moves that one file to req.Dst.
func (g *gitGetter) GetFile(ctx context.Context, req *getter.Request) error {
	dst := req.Dst
	tmp, err := os.MkdirTemp(filepath.Dir(dst), ".git-clone-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	repo := *req.URL()
	name := filepath.Base(repo.Path)
	repo.Path = filepath.Dir(repo.Path)
	if err := g.clone(ctx, filepath.Join(tmp, "repo"), &repo); err != nil {
		return err
	}
	src := filepath.Join(tmp, "repo", name)
	if fi, err := os.Lstat(src); err != nil || !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a file of the repository", name)
	}
	return os.Rename(src, dst)
}

// Get clones the repository into req.Dst.
func (g *gitGetter) Get(ctx context.Context, req *getter.Request) error {
	return g.clone(ctx, req.Dst, req.URL())
}

// gitRemote is a repository to clone, as its source and options say.
type gitRemote struct {
	url    string
	ref    string
	depth  int
	sshKey []byte
}

func parseGitRemote(u *url.URL) (*gitRemote, error) {
	switch u.Scheme {
	case "https", "http", "ssh", "git":
	default:
		return nil, fmt.Errorf("git protocol %q is not supported (use https, http, ssh or git)", u.Scheme)
	}
	q := u.Query()
	r := &gitRemote{ref: q.Get("ref")}
	if strings.HasPrefix(r.ref, "-") {
		return nil, fmt.Errorf("ref %q: a ref does not start with -", r.ref)
	}
	if d := q.Get("depth"); d != "" {
		n, err := strconv.Atoi(d)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("depth %q: want a number of commits, 0 or more", d)
		}
		r.depth = n
	}
	if k := q.Get("sshkey"); k != "" {
		key, err := base64.StdEncoding.DecodeString(k)
		if err != nil {
			return nil, fmt.Errorf("sshkey: want the private key in base64: %w", err)
		}
		r.sshKey = key
	}
	for _, k := range []string{"ref", "depth", "sshkey"} {
		q.Del(k)
	}
	clean := *u
	clean.RawQuery = q.Encode()
	r.url = clean.String()
	return r, nil
}

// clone clones the repository u names, at its ref and depth, into dst.
func (g *gitGetter) clone(ctx context.Context, dst string, u *url.URL) error {
	if g.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, g.timeout)
		defer cancel()
	}
	remote, err := parseGitRemote(u)
	if err != nil {
		return err
	}
	run, err := g.runner(ctx, u, remote, filepath.Dir(dst))
	if err != nil {
		return err
	}
	defer run.cleanup()

	args := []string{"clone"}
	if remote.depth > 0 {
		args = append(args, "--depth", strconv.Itoa(remote.depth))
		if remote.ref != "" {
			args = append(args, "--branch", remote.ref)
		}
	}
	if err := run.git(ctx, "", append(args, "--", remote.url, dst)...); err != nil {
		return err
	}
	if remote.ref != "" && remote.depth == 0 {
		if err := checkoutRef(ctx, run, dst, remote.ref); err != nil {
			return err
		}
	}
	args = []string{"submodule", "update", "--init", "--recursive"}
	if remote.depth > 0 {
		args = append(args, "--depth", strconv.Itoa(remote.depth))
	}
	return run.git(ctx, dst, args...)
}

// checkoutRef checks out ref, a branch, tag or commit, as go-getter
// resolves it.
func checkoutRef(ctx context.Context, run *gitRunner, dir, ref string) error {
	for _, candidate := range []string{ref, "refs/remotes/origin/" + ref, "refs/tags/" + ref} {
		out, err := run.output(ctx, dir, "rev-parse", "--verify", "--quiet", candidate+"^{commit}")
		if err == nil {
			return run.git(ctx, dir, "checkout", "--quiet", strings.TrimSpace(out))
		}
	}
	return fmt.Errorf("ref %q: no branch, tag or commit of that name", ref)
}

// gitRunner runs git for one clone.
type gitRunner struct {
	config []string // -c settings
	env    []string
	proxy  *netguard.Proxy // nil for ssh and git://
	tmp    string
}

func (r *gitRunner) cleanup() { os.RemoveAll(r.tmp) }

// runner sets up git's environment and settings for a clone of remote:
// the guard proxy for http(s), the address check for ssh and git://,
// the ssh key in a private file under tmpBase.
func (g *gitGetter) runner(ctx context.Context, u *url.URL, remote *gitRemote, tmpBase string) (*gitRunner, error) {
	tmp, err := os.MkdirTemp(tmpBase, ".git-env-*")
	if err != nil {
		return nil, err
	}
	r := &gitRunner{tmp: tmp, env: gitEnv(g.env)}
	r.config = []string{
		"protocol.allow=never", "protocol.https.allow=always", "protocol.http.allow=always",
		"protocol.ssh.allow=always", "protocol.git.allow=always",
		"credential.helper=", "core.askPass=",
	}
	switch u.Scheme {
	case "https", "http":
		proxy, err := g.fetcher.gitProxy()
		if err != nil {
			r.cleanup()
			return nil, err
		}
		r.config = append(r.config, "http.proxy="+proxy.URL())
		r.proxy = proxy
	default:
		if err := checkHost(ctx, g.fetcher.config.addresses(), u.Hostname(), defaultPort(u.Scheme, u.Port())); err != nil {
			r.cleanup()
			return nil, err
		}
	}
	if remote.sshKey != nil {
		key := filepath.Join(tmp, "id")
		if err := os.WriteFile(key, remote.sshKey, 0o600); err != nil {
			r.cleanup()
			return nil, fmt.Errorf("write ssh key: %w", err)
		}
		r.env = append(r.env, "GIT_SSH_COMMAND=ssh -i "+key+" -o IdentitiesOnly=yes -o BatchMode=yes")
	}
	return r, nil
}

// gitEnv is git's environment: a PATH, HOME, no prompts, no system or
// global configuration, and the named variables of the agent's. Proxy
// exceptions (no_proxy) are never passed: they would let git around the
// guard proxy.
func gitEnv(names []string) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + os.Getenv("HOME"),
		"GIT_TERMINAL_PROMPT=0",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=" + os.DevNull,
		"GIT_SSH_COMMAND=ssh -o BatchMode=yes",
	}
	for _, name := range names {
		switch strings.ToLower(name) {
		case "no_proxy", "path", "home", "git_config_global", "git_config_nosystem", "git_config_parameters":
			continue
		}
		if v, ok := os.LookupEnv(name); ok {
			env = append(env, name+"="+v)
		}
	}
	return env
}

func (r *gitRunner) command(ctx context.Context, dir string, args ...string) *exec.Cmd {
	full := make([]string, 0, 2*len(r.config)+len(args))
	for _, c := range r.config {
		full = append(full, "-c", c)
	}
	cmd := exec.CommandContext(ctx, "git", append(full, args...)...)
	cmd.Dir = dir
	cmd.Env = r.env
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// git runs a git command; its error has git's output, or the address
// policy's refusal when the guard proxy refused a connection.
func (r *gitRunner) git(ctx context.Context, dir string, args ...string) error {
	var out bytes.Buffer
	cmd := r.command(ctx, dir, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		if r.proxy != nil {
			if refused := r.proxy.Refused(); refused != nil {
				return refusal(refused)
			}
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return fmt.Errorf("git %s: %w", args[0], ctxErr)
		}
		return fmt.Errorf("git %s: %w: %s", args[0], err, strings.TrimSpace(lastLines(out.String(), 5)))
	}
	return nil
}

func (r *gitRunner) output(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := r.command(ctx, dir, args...).Output()
	return string(out), err
}

// lastLines is the last n lines of s, git's reason being at the end,
// less git's progress lines, which name the client's staging directory.
func lastLines(s string, n int) string {
	var lines []string
	for line := range strings.SplitSeq(strings.TrimSpace(s), "\n") {
		if !strings.HasPrefix(line, "Cloning into ") {
			lines = append(lines, line)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
