package structs

import (
	"errors"
	"testing"

	"github.com/shoenig/test/must"
)

func TestValidate_artifacts(t *testing.T) {
	const where = `Task group "g" task "t" artifact #1: `
	ok := []*TaskArtifact{
		{GetterSource: "https://example.com/tool.tar.gz", RelativeDest: "local/tool"},
		{GetterSource: "HTTP://example.com/f", RelativeDest: "../alloc/data"},
		{GetterSource: "http://[::1]:8080/f.zip", RelativeDest: ".."},
		{GetterSource: "${NOMAD_META_url}", RelativeDest: "local/"},
		{GetterSource: "https://${attr.unique.hostname}/f", RelativeDest: "${NOMAD_TASK_NAME}/x"},
		{GetterSource: "https://example.com/f", GetterOptions: map[string]string{
			"checksum": "sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae", "archive": "TGZ"}},
		{GetterSource: "https://example.com/f", GetterOptions: map[string]string{"checksum": "${NOMAD_META_sum}", "archive": "false"}},
	}
	for i, a := range ok {
		j := validJob("batch")
		if a.GetterMode == "" {
			a.GetterMode = ArtifactModeAny
		}
		if a.RelativeDest == "" {
			a.RelativeDest = DefaultArtifactDest
		}
		task(j).Artifacts = []*TaskArtifact{a}
		must.NoError(t, j.Validate(), must.Sprintf("artifact %d: %+v", i, a))
	}

	bad := []struct {
		art  TaskArtifact
		want string
	}{
		{TaskArtifact{GetterSource: "file:///etc/passwd"},
			`source "file:///etc/passwd": scheme "file" is not supported; the client fetches http and https URLs only`},
		{TaskArtifact{GetterSource: "s3://bucket/key"},
			`source "s3://bucket/key": scheme "s3" is not supported; the client fetches http and https URLs only`},
		{TaskArtifact{GetterSource: "git::https://example.com/repo.git"},
			`source "git::https://example.com/repo.git": getter "git::" is not supported; the client fetches http and https URLs only`},
		{TaskArtifact{GetterSource: "github.com/hashicorp/nomad"},
			`source "github.com/hashicorp/nomad": not a URL; the client fetches http and https URLs only, such as "https://example.com/file.tar.gz"`},
		{TaskArtifact{GetterSource: "/opt/tools/tool.tgz"},
			`source "/opt/tools/tool.tgz": not a URL; the client fetches http and https URLs only, such as "https://example.com/file.tar.gz"`},
		{TaskArtifact{GetterSource: "https:///f"}, `source "https:///f": has no host`},
		{TaskArtifact{GetterSource: "https://example.com/"}, `source "https://example.com/": does not name a file`},
		{TaskArtifact{GetterSource: "https://example.com/f", RelativeDest: "/etc/cron.d"},
			`destination "/etc/cron.d" must be relative to the task directory ("local/...", "../alloc/...")`},
		{TaskArtifact{GetterSource: "https://example.com/f", RelativeDest: "${NOMAD_ALLOC_DIR}/data"},
			`destination "${NOMAD_ALLOC_DIR}/data" starts with ${NOMAD_ALLOC_DIR}, an absolute path: write it relative to the task directory ("local/...", "../alloc/...")`},
		{TaskArtifact{GetterSource: "https://example.com/f", RelativeDest: "../alloc/../../x"},
			`destination "../alloc/../../x" escapes the allocation directory`},
		{TaskArtifact{GetterSource: "https://example.com/f", GetterOptions: map[string]string{"ref": "main"}},
			`options: "ref" is not supported; the client reads checksum and archive only`},
		{TaskArtifact{GetterSource: "https://example.com/f", GetterOptions: map[string]string{"checksum": "crc32:abcd"}},
			`options: checksum type "crc32" is not supported (use one of md5, sha1, sha256, sha512)`},
		{TaskArtifact{GetterSource: "https://example.com/f", GetterOptions: map[string]string{"checksum": "sha256:abcd"}},
			`options: checksum "sha256:abcd": a sha256 digest has 64 hex digits, got 4`},
		{TaskArtifact{GetterSource: "https://example.com/f", GetterOptions: map[string]string{"checksum": "md5"}},
			`options: checksum "md5": want <type>:<hex digest>`},
		{TaskArtifact{GetterSource: "https://example.com/f", GetterOptions: map[string]string{"archive": "rar"}},
			`options: archive option "rar" is not supported (use false, tar, tar.gz, tgz or zip)`},
	}
	for _, tc := range bad {
		t.Run(tc.want, func(t *testing.T) {
			a := tc.art
			a.GetterMode = ArtifactModeAny
			if a.RelativeDest == "" {
				a.RelativeDest = DefaultArtifactDest
			}
			j := validJob("batch")
			task(j).Artifacts = []*TaskArtifact{&a}
			var verr *ValidationError
			must.True(t, errors.As(j.Validate(), &verr))
			must.Eq(t, []string{where + tc.want}, messages(verr))
		})
	}
}

func TestParseArtifactArchive(t *testing.T) {
	for opt, want := range map[string]string{"": "", "false": "false", "tar": "tar", "TAR.GZ": "tar.gz", "tgz": "tar.gz", "zip": "zip"} {
		got, err := ParseArtifactArchive(opt)
		must.NoError(t, err)
		must.Eq(t, want, got, must.Sprintf("%q", opt))
	}
	_, err := ParseArtifactArchive("true")
	must.Error(t, err)
}
