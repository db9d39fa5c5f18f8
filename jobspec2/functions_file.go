package jobspec2

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"unicode/utf8"

	"github.com/hashicorp/go-cty-funcs/filesystem"
	homedir "github.com/mitchellh/go-homedir"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// fileFunctions are Nomad's functions that read the local file system:
// the CLI's user's own, never a server's (see ParseConfig.AllowFS).
// Relative paths start at baseDir, the jobspec's folder, and a leading ~
// is the user's home. The functions that read a file's content read at
// most maxRead bytes of it: more could not be charged to the evaluation
// budget, and a path such as /dev/zero never ends.
func fileFunctions(baseDir string, maxRead int64) map[string]function.Function {
	return map[string]function.Function{
		"abspath":     filesystem.AbsPathFunc,
		"basename":    filesystem.BasenameFunc,
		"dirname":     filesystem.DirnameFunc,
		"file":        readFileFunc(baseDir, maxRead, "Reads a UTF-8 text file.", textContent),
		"filebase64":  readFileFunc(baseDir, maxRead, "Reads a file as standard Base64.", base64Content),
		"fileescaped": readFileFunc(baseDir, maxRead, "Reads a UTF-8 text file, escaping ${ and %{ so HCL keeps them literally.", escapedContent),
		"fileexists":  fileExistsFunc(baseDir),
		"fileset":     filesystem.MakeFileSetFunc(baseDir),
		"pathexpand":  filesystem.PathExpandFunc,
	}
}

// withoutFS is a file function where the local file system may not be
// read, as in POST /v1/jobs/parse: a call fails, saying why, before it
// reads anything.
func withoutFS(name string, f function.Function) function.Function {
	return function.New(&function.Spec{
		Description: f.Description(),
		Params:      f.Params(),
		VarParam:    f.VarParam(),
		Type: func([]cty.Value) (cty.Type, error) {
			return cty.NilType, fmt.Errorf("%s() reads the local file system, which only the CLI (drover job run, plan, validate) lets a jobspec do; POST /v1/jobs/parse never reads the server's files", name)
		},
		Impl: func([]cty.Value, cty.Type) (cty.Value, error) {
			return cty.NilVal, fmt.Errorf("%s() may not read the local file system here", name)
		},
	})
}

// readFileFunc builds a function of one path argument that returns what
// content makes of the file's bytes.
func readFileFunc(baseDir string, maxRead int64, description string, content func(path string, raw []byte) (string, error)) function.Function {
	return function.New(&function.Spec{
		Description: description + " Relative paths start at the jobspec's directory.",
		Params:      []function.Parameter{{Name: "path", Type: cty.String}},
		Type:        function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			path := args[0].AsString()
			raw, err := readBounded(baseDir, path, maxRead)
			if err != nil {
				return cty.NilVal, err
			}
			s, err := content(path, raw)
			if err != nil {
				return cty.NilVal, err
			}
			return cty.StringVal(s), nil
		},
	})
}

func textContent(path string, raw []byte) (string, error) {
	if !utf8.Valid(raw) {
		return "", fmt.Errorf("%s is not valid UTF-8 text; filebase64 reads any file", path)
	}
	return string(raw), nil
}

func base64Content(_ string, raw []byte) (string, error) {
	return base64.StdEncoding.EncodeToString(raw), nil
}

// templateOpeners are the sequences HCL reads as the start of an
// interpolation (${) or a directive (%{), with any run of $ or % before
// the brace.
var templateOpeners = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(\$+|%+)\{`)
})

// escapedContent doubles the $ or % that opens a template sequence, so
// the text survives being pasted into a heredoc as it is.
func escapedContent(path string, raw []byte) (string, error) {
	text, err := textContent(path, raw)
	if err != nil {
		return "", err
	}
	return templateOpeners().ReplaceAllStringFunc(text, func(m string) string {
		return m[:1] + m
	}), nil
}

func fileExistsFunc(baseDir string) function.Function {
	return function.New(&function.Spec{
		Description: "Reports whether a regular file exists; relative paths start at the jobspec's directory.",
		Params:      []function.Parameter{{Name: "path", Type: cty.String}},
		Type:        function.StaticReturnType(cty.Bool),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			path, err := resolvePath(baseDir, args[0].AsString())
			if err != nil {
				return cty.NilVal, err
			}
			info, err := os.Stat(path)
			switch {
			case errors.Is(err, os.ErrNotExist):
				return cty.False, nil
			case err != nil:
				return cty.NilVal, err
			}
			return cty.BoolVal(info.Mode().IsRegular()), nil
		},
	})
}

// readBounded reads the file at path, refusing one of more than max bytes
// after reading at most one byte past max.
func readBounded(baseDir, path string, max int64) ([]byte, error) {
	full, err := resolvePath(baseDir, path)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(full)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(raw)) > max {
		return nil, fmt.Errorf("%s is more than %d bytes, more than evaluating the jobspec may take (limits.hcl_max_eval_work)", path, max)
	}
	return raw, nil
}

// resolvePath expands a leading ~ and makes a relative path relative to
// baseDir.
func resolvePath(baseDir, path string) (string, error) {
	expanded, err := homedir.Expand(path)
	if err != nil {
		return "", fmt.Errorf("expand ~ in %s: %w", path, err)
	}
	if filepath.IsAbs(expanded) {
		return expanded, nil
	}
	return filepath.Join(baseDir, expanded), nil
}
