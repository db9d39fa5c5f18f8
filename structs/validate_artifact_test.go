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
		// go-getter's sources, as Nomad's users write them.
		{GetterSource: "git::https://example.com/repo.git?ref=v1", RelativeDest: "local/repo"},
		{GetterSource: "git::https://example.com/repo.git//sub/dir", GetterOptions: map[string]string{"ref": "main", "depth": "1"}},
		{GetterSource: "github.com/hashicorp/nomad", RelativeDest: "local/nomad"},
		{GetterSource: "gitlab.com/group/project?ref=v2"},
		{GetterSource: "git@github.com:hashicorp/nomad.git", GetterOptions: map[string]string{"sshkey": "a2V5"}},
		{GetterSource: "git::ssh://git@example.com/repo.git"},
		{GetterSource: "git::git@example.com:org/repo.git?ref=main"},
		{GetterSource: "s3::https://s3.amazonaws.com/bucket/key.tgz?aws_access_key_id=id&aws_access_key_secret=s"},
		{GetterSource: "s3::http://127.0.0.1:9000/bucket/key", GetterOptions: map[string]string{
			"aws_access_key_id": "id", "aws_access_key_secret": "secret", "region": "eu-west-1"}},
		{GetterSource: "bucket.s3-eu-west-1.amazonaws.com/key?aws_access_key_id=id&aws_access_key_secret=s"},
		{GetterSource: "https://example.com/f.tar.zst", GetterOptions: map[string]string{"archive": "tbz2", "filename": "x"}},
		// Destinations as Nomad writes them.
		{GetterSource: "https://example.com/f", RelativeDest: "${NOMAD_ALLOC_DIR}/data"},
		{GetterSource: "https://example.com/f", RelativeDest: "${NOMAD_TASK_DIR}"},
		{GetterSource: "https://example.com/f", RelativeDest: "/local/conf"},
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
			`source "file:///etc/passwd": scheme "file" is not supported; ` + supportedSources},
		{TaskArtifact{GetterSource: "s3://bucket/key"},
			`source "s3://bucket/key": an s3 source needs its credentials, aws_access_key_id and aws_access_key_secret, in its query or options: the client does not lend a job its own`},
		{TaskArtifact{GetterSource: "s3::https://s3.amazonaws.com/b/k?aws_profile=default"},
			`source "s3::https://s3.amazonaws.com/b/k?aws_profile=default": aws_profile is not supported: it would read the client's own AWS credentials`},
		{TaskArtifact{GetterSource: "gcs::https://www.googleapis.com/storage/v1/bucket/object"},
			`source "gcs::https://www.googleapis.com/storage/v1/bucket/object": ` + errGCS.Error()},
		{TaskArtifact{GetterSource: "www.googleapis.com/storage/v1/bucket/object"},
			`source "www.googleapis.com/storage/v1/bucket/object": ` + errGCS.Error()},
		{TaskArtifact{GetterSource: "hg::https://example.com/repo"},
			`source "hg::https://example.com/repo": getter "hg::" is not supported; ` + supportedSources},
		{TaskArtifact{GetterSource: "git::file:///srv/repo"},
			`source "git::file:///srv/repo": scheme "file" is not supported; ` + supportedSources},
		{TaskArtifact{GetterSource: "github.com/hashicorp"},
			`source "github.com/hashicorp": a github.com source names a repository: github.com/<owner>/<repository>`},
		{TaskArtifact{GetterSource: "/opt/tools/tool.tgz"},
			`source "/opt/tools/tool.tgz": not a URL nor a source the client recognises; ` + supportedSources +
				`, such as "https://example.com/file.tar.gz" or "git::https://example.com/repo.git?ref=v1"`},
		{TaskArtifact{GetterSource: "https:///f"}, `source "https:///f": has no host`},
		{TaskArtifact{GetterSource: "https://example.com/"}, `source "https://example.com/": does not name a file`},
		{TaskArtifact{GetterSource: "https://example.com/f", RelativeDest: "/../../etc/cron.d"},
			`destination "/../../etc/cron.d" escapes the allocation directory`},
		{TaskArtifact{GetterSource: "https://example.com/f", RelativeDest: "${NOMAD_ALLOC_DIR}/../../x"},
			`destination "${NOMAD_ALLOC_DIR}/../../x" escapes the allocation directory`},
		{TaskArtifact{GetterSource: "https://example.com/f", RelativeDest: "../alloc/../../x"},
			`destination "../alloc/../../x" escapes the allocation directory`},
		{TaskArtifact{GetterSource: "https://example.com/f", GetterOptions: map[string]string{"refs": "main"}},
			`options: "refs" is not supported; the client reads checksum, archive, ref, depth, sshkey, filename and the s3 options aws_access_key_id, aws_access_key_secret, aws_access_token, region, version`},
		{TaskArtifact{GetterSource: "https://example.com/f", GetterOptions: map[string]string{"depth": "-1"}},
			`options: depth "-1": want a number of commits, 0 or more`},
		{TaskArtifact{GetterSource: "https://example.com/f", GetterOptions: map[string]string{"filename": "../x"}},
			`options: filename "../x": want a file name`},
		{TaskArtifact{GetterSource: "https://example.com/f", GetterOptions: map[string]string{"checksum": "crc32:abcd"}},
			`options: checksum type "crc32" is not supported (use one of md5, sha1, sha256, sha512)`},
		{TaskArtifact{GetterSource: "https://example.com/f", GetterOptions: map[string]string{"checksum": "sha256:abcd"}},
			`options: checksum "sha256:abcd": a sha256 digest has 64 hex digits, got 4`},
		{TaskArtifact{GetterSource: "https://example.com/f", GetterOptions: map[string]string{"checksum": "md5"}},
			`options: checksum "md5": want <type>:<hex digest>`},
		{TaskArtifact{GetterSource: "https://example.com/f", GetterOptions: map[string]string{"archive": "rar"}},
			`options: archive option "rar" is not supported (use false or one of tar, tar.gz, tgz, tar.bz2, tbz2, tar.zst, tzst, zip, gz, bz2, zst)`},
		{TaskArtifact{GetterSource: "https://example.com/f", GetterOptions: map[string]string{"archive": "txz"}},
			`options: archive option "txz" is not supported (use false or one of tar, tar.gz, tgz, tar.bz2, tbz2, tar.zst, tzst, zip, gz, bz2, zst)`},
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
	for opt, want := range map[string]string{"": "", "false": "false", "tar": "tar", "TAR.GZ": "tar.gz", "tgz": "tgz", "zip": "zip", "zst": "zst"} {
		got, err := ParseArtifactArchive(opt)
		must.NoError(t, err)
		must.Eq(t, want, got, must.Sprintf("%q", opt))
	}
	_, err := ParseArtifactArchive("true")
	must.Error(t, err)
}
