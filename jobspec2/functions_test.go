package jobspec2

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/shoenig/test/must"
	"golang.org/x/crypto/bcrypt"
)

// evalMeta parses a job whose meta "v" is expr, with the variables vars
// (name=value) declared and set, and returns the value or the error.
func evalMeta(t *testing.T, cfg ParseConfig, expr string, vars ...string) (string, error) {
	t.Helper()
	var decls strings.Builder
	for _, v := range vars {
		name, _, _ := strings.Cut(v, "=")
		decls.WriteString("variable \"" + name + "\" { type = string }\n")
	}
	if cfg.Path == "" {
		cfg.Path = "job.hcl"
	}
	cfg.Body = []byte(decls.String() + "job \"f\" {\n  meta = { v = " + expr + " }\n}\n")
	cfg.ArgVars = vars
	job, err := ParseWithConfig(&cfg)
	if err != nil {
		return "", err
	}
	return job.Meta["v"], nil
}

// TestFunctions_Nomad calls each function Nomad's jobspec has beyond
// go-cty's stdlib, as a job author would.
func TestFunctions_Nomad(t *testing.T) {
	uuidPattern := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	for _, tc := range []struct {
		expr  string
		want  string
		match *regexp.Regexp
	}{
		{expr: `uuidv4()`, match: uuidPattern},
		{expr: `uuidv5("dns", "www.example.com")`, want: "2ed6657d-e927-568b-95e1-2665a8aea6a2"},
		{expr: `uuidv5("url", "https://www.example.com/")`, want: uuid.NewSHA1(uuid.NameSpaceURL, []byte("https://www.example.com/")).String()},
		{expr: `uuidv5("6ba7b812-9dad-11d1-80b4-00c04fd430c8", "1.3.6.1")`, want: uuid.NewSHA1(uuid.NameSpaceOID, []byte("1.3.6.1")).String()},
		{expr: `md5("hello world")`, want: "5eb63bbbe01eeed093cb22bb8f5acdc3"},
		{expr: `sha1("hello world")`, want: "2aae6c35c94fcfb415dbe95f408b9ce91ee846ed"},
		{expr: `sha256("hello world")`, want: "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9"},
		{expr: `sha512("a")`, want: "1f40fc92da241694750979ee6cf582f2d5d7d28e18335de05abc54d0560e0f5302860c652bf08d560252aa5e74210546f369fbbbce8c12cfc7957b2652fe9a75"},
		{expr: `urlencode("a b&c=d/é")`, want: "a+b%26c%3Dd%2F%C3%A9"},
		{expr: `cidrhost("10.12.112.0/20", 16)`, want: "10.12.112.16"},
		{expr: `cidrhost("fd00:fd12:3456:7890::/56", 268)`, want: "fd00:fd12:3456:7800::10c"},
		{expr: `cidrnetmask("172.16.0.0/12")`, want: "255.240.0.0"},
		{expr: `cidrsubnet("172.16.0.0/12", 4, 2)`, want: "172.18.0.0/16"},
		{expr: `jsonencode(cidrsubnets("10.1.0.0/16", 4, 4, 8, 4))`, want: `["10.1.0.0/20","10.1.16.0/20","10.1.32.0/24","10.1.48.0/20"]`},
		{expr: `jsonencode(yamldecode("a: 1\nb: [x, z]\n"))`, want: `{"a":1,"b":["x","z"]}`},
		{expr: `yamlencode({a = "b"})`, want: "\"a\": \"b\"\n"},
		{expr: `index(["a", "b", "c"], 1)`, want: "b"},
		{expr: `jsonencode(convert({a = 1}, map(string)))`, want: `{"a":"1"}`},
		{expr: `jsonencode(convert(["a", "b"], set(string)))`, want: `["a","b"]`},
		{expr: `formatdate("YYYY-MM-DD", "2024-02-29T10:00:00Z")`, want: "2024-02-29"},
		{expr: `timeadd("2024-01-01T00:00:00Z", "90m")`, want: "2024-01-01T01:30:00Z"},
		{expr: `trimprefix("nomad-job", "nomad-")`, want: "job"},
		{expr: `base64encode("hi")`, want: "aGk="},
	} {
		t.Run(tc.expr, func(t *testing.T) {
			got, err := evalMeta(t, ParseConfig{}, tc.expr)
			must.NoError(t, err)
			if tc.match != nil {
				must.RegexMatch(t, tc.match, got)
				return
			}
			must.Eq(t, tc.want, got)
		})
	}
}

func TestFunctions_UUIDv4IsFresh(t *testing.T) {
	a, err := evalMeta(t, ParseConfig{}, `uuidv4()`)
	must.NoError(t, err)
	b, err := evalMeta(t, ParseConfig{}, `uuidv4()`)
	must.NoError(t, err)
	must.NotEq(t, a, b)
}

func TestFunctions_Bcrypt(t *testing.T) {
	hash, err := evalMeta(t, ParseConfig{}, `bcrypt("s3cret", 4)`)
	must.NoError(t, err)
	must.StrHasPrefix(t, "$2a$04$", hash)
	must.NoError(t, bcrypt.CompareHashAndPassword([]byte(hash), []byte("s3cret")))

	hash, err = evalMeta(t, ParseConfig{}, `bcrypt("s3cret")`)
	must.NoError(t, err)
	must.StrHasPrefix(t, "$2a$10$", hash)
}

// TestFunctions_BcryptCostBudgeted: each round of bcrypt's setup is
// charged before it runs, so a cost no budget covers fails at once.
func TestFunctions_BcryptCostBudgeted(t *testing.T) {
	_, err := evalMeta(t, ParseConfig{}, `bcrypt("s3cret", 31)`)
	must.ErrorContains(t, err, "limits.hcl_max_eval_work")
}

func TestFunctions_RSADecrypt(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	must.NoError(t, err)
	//lint:ignore SA1019 rsadecrypt, Nomad's function, decrypts PKCS #1 v1.5: the test encrypts the same way.
	ct, err := rsa.EncryptPKCS1v15(rand.Reader, &key.PublicKey, []byte("the secret"))
	must.NoError(t, err)
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})

	got, err := evalMeta(t, ParseConfig{}, `rsadecrypt(var.ct, var.key)`,
		"ct="+base64.StdEncoding.EncodeToString(ct), "key="+string(keyPEM))
	must.NoError(t, err)
	must.Eq(t, "the secret", got)

	_, err = evalMeta(t, ParseConfig{}, `rsadecrypt(var.ct, var.key)`, "ct=!!", "key="+string(keyPEM))
	must.ErrorContains(t, err, "base64")
}

func TestFunctions_YAMLDecodeGuards(t *testing.T) {
	for name, doc := range map[string]string{
		"aliases": "a: &a [x]\nb: &b [*a, *a, *a]\nc: &c [*b, *b, *b]\nd: [*c, *c, *c]\n",
		"flow":    strings.Repeat("[", 200) + strings.Repeat("]", 200),
		"block":   strings.Repeat("- ", 200) + "x\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := evalMeta(t, ParseConfig{}, `jsonencode(yamldecode(var.doc))`, "doc="+doc)
			must.Error(t, err)
		})
	}
	got, err := evalMeta(t, ParseConfig{}, `jsonencode(yamldecode(var.doc))`, "doc=a: &a [x]\nb: *a\n")
	must.NoError(t, err)
	must.Eq(t, `{"a":["x"],"b":["x"]}`, got)
}

// TestFunctions_Files calls each file function on files beside the
// jobspec.
func TestFunctions_Files(t *testing.T) {
	dir := t.TempDir()
	must.NoError(t, os.WriteFile(filepath.Join(dir, "run.sh"), []byte("echo ${HOME} %{x} $${y}\n"), 0o600))
	must.NoError(t, os.WriteFile(filepath.Join(dir, "bin.dat"), []byte{0xff, 0x00, 0x01}, 0o600))
	must.NoError(t, os.Mkdir(filepath.Join(dir, "conf"), 0o700))
	for _, name := range []string{"a.conf", "b.conf", "c.txt"} {
		must.NoError(t, os.WriteFile(filepath.Join(dir, "conf", name), nil, 0o600))
	}
	home, err := os.UserHomeDir()
	must.NoError(t, err)
	cfg := ParseConfig{Path: filepath.Join(dir, "job.hcl"), AllowFS: true}

	for _, tc := range []struct{ expr, want string }{
		{`file("run.sh")`, "echo ${HOME} %{x} $${y}\n"},
		{`fileescaped("run.sh")`, "echo $${HOME} %%{x} $$${y}\n"},
		{`filebase64("bin.dat")`, "/wAB"},
		{`jsonencode(fileexists("run.sh"))`, "true"},
		{`jsonencode(fileexists("conf"))`, "false"},
		{`jsonencode(fileexists("nothing"))`, "false"},
		{`jsonencode(fileset(".", "conf/*.conf"))`, `["conf/a.conf","conf/b.conf"]`},
		{`basename("/a/b/c.txt")`, "c.txt"},
		{`dirname("/a/b/c.txt")`, "/a/b"},
		{`abspath("/a/../b")`, "/b"},
		{`pathexpand("~/x")`, filepath.Join(home, "x")},
	} {
		t.Run(tc.expr, func(t *testing.T) {
			got, err := evalMeta(t, cfg, tc.expr)
			must.NoError(t, err)
			must.Eq(t, tc.want, got)
		})
	}

	// Without AllowFS, as on the server, each one fails saying why.
	for _, fn := range FileFunctions() {
		args := `"x"`
		if fn == "fileset" {
			args = `".", "*"`
		}
		_, err := evalMeta(t, ParseConfig{Path: cfg.Path}, fn+`(`+args+`)`)
		must.ErrorContains(t, err, fn+"() reads the local file system, which only the CLI", must.Sprint(fn))
	}
}

// TestFunctions_FileReadBounded: a file is read only up to what the
// evaluation budget could take, so an endless one fails at once.
func TestFunctions_FileReadBounded(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	cfg := ParseConfig{AllowFS: true, Limits: Limits{MaxEvalWork: 1 << 16}}
	for _, fn := range []string{"file", "filebase64", "fileescaped"} {
		_, err := evalMeta(t, cfg, fn+`("/dev/zero")`)
		must.ErrorContains(t, err, "more than 65536 bytes")
	}
}

// TestFunctions_Listed: every function of the table is one the reference
// and Nomad's docs know; the file functions are listed apart.
func TestFunctions_Listed(t *testing.T) {
	all := Functions()
	for _, fn := range []string{"uuidv4", "uuidv5", "bcrypt", "md5", "rsadecrypt", "sha1", "sha256", "sha512",
		"cidrhost", "cidrnetmask", "cidrsubnet", "cidrsubnets", "urlencode", "yamldecode", "yamlencode",
		"convert", "index"} {
		must.SliceContains(t, all, fn)
	}
	must.Eq(t, []string{"abspath", "basename", "dirname", "file", "filebase64", "fileescaped", "fileexists", "fileset", "pathexpand"}, FileFunctions())
}
