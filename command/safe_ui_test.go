package command

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

func TestEscapeUnprintable(t *testing.T) {
	for in, want := range map[string]string{
		"plain text, tabs\tand\nlines": "plain text, tabs\tand\nlines",
		"tâche 日本":                     "tâche 日本",
		"evil\x1b[2J":                  `evil\u001b[2J`,
		"bell\a":                       `bell\u0007`,
		"del\x7f c1\u0085":             `del\u007f c1\u0085`,
		"rtl\u202eoverride":            `rtl\u202eoverride`,
		"bad\xffutf8":                  `bad\ufffdutf8`,
		"tag\U000E0001":                `tag\udb40\udc01`,
	} {
		must.Eq(t, want, escapeUnprintable(in), must.Sprintf("%q", in))
	}
	// Escaped JSON is still JSON, with the same value.
	var s string
	must.NoError(t, json.Unmarshal([]byte(`"`+escapeUnprintable("a\x7f\u202eb")+`"`), &s))
	must.Eq(t, "a\x7f\u202eb", s)
}

// Class 6: the CLI printed the raw escape sequences a job ID held. A server
// that sends them (an old one, or a hostile one) no longer reaches the
// terminal with them.
func TestCLI_escapesWhatTheServerSends(t *testing.T) {
	const evil = "evil\x1b]0;pwned\a\x1b[2J"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/jobs" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode([]*api.JobListStub{{ID: evil, Name: evil, Type: "batch", Status: "running"}})
	}))
	t.Cleanup(srv.Close)

	code, out, errOut := runCLI(t, "", "job", "status", "-address", srv.URL)
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.StrNotContains(t, out, "\x1b")
	must.StrNotContains(t, out, "\a")
	must.StrContains(t, out, `evil\u001b]0;pwned\u0007\u001b[2J`)

	// Errors the server words are escaped too.
	srv2 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no job \x1b[31mred\x1b[0m", http.StatusBadRequest)
	}))
	t.Cleanup(srv2.Close)
	code, _, errOut = runCLI(t, "", "job", "status", "-address", srv2.URL)
	must.Eq(t, 1, code)
	must.False(t, strings.ContainsRune(errOut, 0x1b), must.Sprint(errOut))
	must.StrContains(t, errOut, `\u001b[31mred`)
}
