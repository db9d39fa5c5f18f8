package e2e

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

// aclUIJob runs long enough for every step of TestUI_ACL inside its
// budget, so that its allocation page counts down all along.
const aclUIJob = `job "acl-ui" {
  type = "batch"
  group "work" {
    max_run_duration = "5m"
    task "sleep" { driver = "raw_exec" config { command = "/bin/sleep" args = ["1000m"] } }
  }
}
`

// readOnlyRules may read the default namespace's jobs, and nothing else:
// not their logs, not the nodes.
const readOnlyRules = `namespace "default" { policy = "read" }`

// timeLeft reads a countdown as "4m 52s" or "52s".
var timeLeft = regexp.MustCompile(`^(?:(\d+)m )?(\d+)s$`)

func countdownSeconds(s string) (int, bool) {
	m := timeLeft.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	mins, _ := strconv.Atoi("0" + m[1])
	sec, _ := strconv.Atoi(m[2])
	return mins*60 + sec, true
}

// TestUI_ACL uses the web UI on an agent with ACLs on, as a user does:
// without a token every page says "Permission denied — set a token"
// instead of breaking; the token page refuses a secret the agent does not
// know, takes a read-only token, shows who it is, and from then on every
// request and the event stream carry it (the jobs page lists the job, the
// allocation page counts down and turns complete by itself when the job
// is stopped); a page the token may not read says so; a token deleted
// while set is named as no longer valid; sign-out brings the message
// back; a permissive anonymous policy lets the UI work without a token.
// No page logs a script error or asks another origin; the agent's 403s
// are the only errors the browser logs. The token page's screenshot is
// the docs' (website/content/docs/ui.md).
func TestUI_ACL(t *testing.T) {
	t.Parallel()
	a, mgmt := startACLDevAgent(t)
	_, err := a.api.ACLPolicies().Upsert(&api.ACLPolicy{Name: "readonly", Description: "Read the jobs of the default namespace", Rules: readOnlyRules}, nil)
	must.NoError(t, err)
	reader := a.createToken("reader", "readonly")
	must.NotEq(t, mgmt, reader.SecretID)

	a.runJob(aclUIJob)
	alloc := a.waitRunning("acl-ui")

	b := startBrowser(t, a.Addr)
	b.expectRefusals(403)

	// No token: the page says why it is empty, and where to go.
	b.open("/ui/jobs", "#denied-why")
	must.StrContains(t, b.text("#denied-title"), "Permission denied — set a token")
	must.StrContains(t, b.text("#denied-why"), "No ACL token is set")
	must.StrContains(t, b.text("#denied-reason"), "Permission denied")
	must.False(t, eval[bool](b, `document.getElementById('content').checkVisibility()`), must.Sprint("the empty table is hidden"))
	must.Eq(t, "not live", b.text("#live"))
	b.screenshot("ui-permission-denied")

	// The link leads to the token page, which knows where it came from.
	b.do("follow the link", chromedp.Click(chromedp.CSS("#denied-link")))
	b.waitText("the token page", "#token-details", func(s string) bool { return strings.Contains(s, "No token is set") })
	must.StrContains(t, eval[string](b, `location.search`), "return=%2Fui%2Fjobs")

	// A secret the agent does not know is refused and not kept.
	b.setToken("00000000-0000-0000-0000-000000000000")
	b.waitText("the refusal", "#token-message", func(s string) bool { return strings.Contains(s, "The agent refused this token: ACL token not found") })
	must.Eq(t, "", eval[string](b, `localStorage.getItem('nomadTokenSecret') || ''`))

	// The read-only token, typed and sent with Enter: the page shows who
	// it is.
	b.setToken(reader.SecretID)
	b.waitText("signed in", "#token-message", func(s string) bool { return s == "Signed in as reader." })
	must.Eq(t, reader.SecretID, eval[string](b, `localStorage.getItem('nomadTokenSecret')`))
	must.Eq(t, "reader", b.text("#token-name"))
	must.Eq(t, "client", b.text("#token-type"))
	must.StrContains(t, b.text("#token-policies"), "readonly — Read the jobs of the default namespace")
	must.Eq(t, "Token: reader", b.text("#token-link"))
	b.do("open the policy's rules", chromedp.Click(chromedp.CSS("#token-policies summary")))
	must.Eq(t, readOnlyRules, b.text("#token-policies pre"))
	b.screenshot("ui-token")

	// Back to the jobs page: the token is sent, the job is listed.
	b.do("go back", chromedp.Click(chromedp.CSS(`#token-details a[href="/ui/jobs"]`)))
	b.waitText("the job's row", `#jobs tr[data-job="acl-ui"]`, func(s string) bool { return strings.Contains(s, "running") })
	must.False(t, eval[bool](b, `document.getElementById('denied').checkVisibility()`))

	// The allocation page counts down; the log panes say the token may
	// not read logs (read has no read-logs) and the rest of the page works.
	b.open("/ui/allocations/"+alloc.ID, "#time-left")
	eval[bool](b, `window.droverNoReload = true`)
	first, _ := countdownSeconds(b.waitText("a countdown", "#time-left", func(s string) bool { _, ok := countdownSeconds(s); return ok }))
	must.Between(t, 1, first, 300)
	b.waitText("the countdown to go down", "#time-left", func(s string) bool {
		n, ok := countdownSeconds(s)
		return ok && n < first
	})
	b.waitText("the task", "#tasks", func(s string) bool { return strings.Contains(s, "Started") })
	must.Eq(t, 2, eval[int](b, `document.querySelectorAll('#tasks pre.log').length`), must.Sprint("a pane for stdout and one for stderr"))
	must.StrContains(t, b.text("#tasks pre.log"), "logs unavailable: Permission denied")
	b.waitText("the live stream", "#live", func(s string) bool { return s == "live" })

	// The event stream carries the token too: stopping the job turns
	// the page complete without a reload (an anonymous stream would see
	// no event of this namespace).
	_, _, err = a.api.Jobs().Deregister("acl-ui", false, nil)
	must.NoError(t, err)
	b.waitText("the allocation stopped", "#client-status", func(s string) bool { return strings.HasPrefix(s, "complete") })
	must.True(t, eval[bool](b, `window.droverNoReload === true`), must.Sprint("the page changed without a reload"))

	// A page the token may not read says so.
	b.open("/ui/clients", "#denied-why")
	must.StrContains(t, b.text("#denied-why"), "The ACL token set in this browser does not allow this page")
	must.StrContains(t, b.text("#denied-reason"), "node:read")

	// The token page in a narrow window: nothing spills out sideways.
	b.viewport(400, 800)
	b.open("/ui/settings/tokens", "#token-details")
	must.False(t, eval[bool](b, `document.documentElement.scrollWidth > window.innerWidth`), must.Sprint("the token page fits a 400 px window"))
	b.viewport(1100, 760)

	// Signing out in another tab applies here at once: the jobs page,
	// listed a moment ago, says it is denied.
	b.open("/ui/jobs", `#jobs tr[data-job="acl-ui"]`)
	b.inOtherTab("sign out", "/ui/settings/tokens", chromedp.Click(chromedp.CSS("#sign-out")),
		chromedp.WaitVisible(chromedp.CSS("#token-secret:focus")))
	b.waitText("the page denied", "#denied-why", func(s string) bool { return strings.Contains(s, "No ACL token is set") })
	must.Eq(t, "", eval[string](b, `localStorage.getItem('nomadTokenSecret') || ''`))
	must.Eq(t, "ACL token", b.text("#token-link"))

	// Sign-out on the token page itself says so.
	b.open("/ui/settings/tokens", "#token-details")
	b.setToken(reader.SecretID)
	b.waitText("signed in", "#token-message", func(s string) bool { return s == "Signed in as reader." })
	b.do("sign out", chromedp.Click(chromedp.CSS("#sign-out")))
	b.waitText("signed out", "#token-message", func(s string) bool { return strings.HasPrefix(s, "Signed out") })
	b.waitText("no token", "#token-details", func(s string) bool { return strings.Contains(s, "No token is set") })
	must.Eq(t, "", eval[string](b, `localStorage.getItem('nomadTokenSecret') || ''`))
	b.open("/ui/jobs", "#denied-why")
	must.StrContains(t, b.text("#denied-why"), "No ACL token is set")

	// A token deleted while this browser holds it is named as such.
	temp := a.createToken("temporary", "readonly")
	b.open("/ui/settings/tokens", "#token-details")
	b.setToken(temp.SecretID)
	b.waitText("signed in", "#token-message", func(s string) bool { return s == "Signed in as temporary." })
	_, err = a.api.ACLTokens().Delete(temp.AccessorID, nil)
	must.NoError(t, err)
	b.open("/ui/jobs", "#denied-why")
	must.StrContains(t, b.text("#denied-why"), "no longer valid")
	b.open("/ui/settings/tokens", "#token-details")
	must.StrContains(t, b.text("#token-details"), "The token set in this browser is not valid: ACL token not found")
	b.do("sign out", chromedp.Click(chromedp.CSS("#sign-out")))
	b.waitText("signed out", "#token-message", func(s string) bool { return strings.HasPrefix(s, "Signed out") })

	// A permissive anonymous policy: the UI works with no token at all.
	_, err = a.api.ACLPolicies().Upsert(&api.ACLPolicy{Name: "anonymous", Rules: readOnlyRules}, nil)
	must.NoError(t, err)
	b.open("/ui/jobs", `#jobs tr[data-job="acl-ui"]`)
	must.StrContains(t, b.text(`#jobs tr[data-job="acl-ui"]`), "dead")
	b.open("/ui/allocations/"+alloc.ID, "#client-status")
	must.StrContains(t, b.text("#client-status"), "complete")

	b.noProblems()
}

// setToken types secret into the token page's field and sends it with
// Enter, as a user at the keyboard does.
func (b *browser) setToken(secret string) {
	b.t.Helper()
	b.do("wait for the form", chromedp.WaitEnabled(chromedp.CSS("#token-set")))
	eval[string](b, `document.getElementById('token-secret').value = ''`)
	b.do("type the secret",
		chromedp.Focus(chromedp.CSS("#token-secret")),
		chromedp.SendKeys(chromedp.CSS("#token-secret"), secret+kb.Enter))
}

// inOtherTab opens path in a second tab of the same browser (the same
// local storage), runs actions there and closes it.
func (b *browser) inOtherTab(what, path string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	tab, closeTab := chromedp.NewContext(b.ctx)
	defer closeTab()
	ctx, cancel := context.WithTimeout(tab, time.Minute)
	defer cancel()
	all := append([]chromedp.Action[chromedp.Void]{chromedp.Navigate(b.origin + path), chromedp.WaitVisible(chromedp.CSS("body"))}, actions...)
	must.NoError(b.t, chromedp.Do(ctx, all...), must.Sprint(what, " in another tab"))
}

// createToken creates a client token holding policies.
func (a *testAgent) createToken(name string, policies ...string) *api.ACLToken {
	a.t.Helper()
	token, _, err := a.api.ACLTokens().Create(&api.ACLToken{Name: name, Type: "client", Policies: policies}, nil)
	if err != nil {
		a.fatalf("create token %s: %v", name, err)
	}
	return token
}

// startACLDevAgent starts `drover agent -dev` with ACLs enabled,
// bootstraps them and waits until its node is ready. Its API client sends
// the management token, which it also returns.
func startACLDevAgent(t *testing.T) (*testAgent, string) {
	t.Helper()
	proc, dir := startDevProcess(t, "acl {\n  enabled = true\n}\n")
	a := &testAgent{Agent: proc, t: t, api: proc.API(), dir: dir}
	var secret string
	a.waitFor("the ACL bootstrap", readyTimeout, func() error {
		token, _, err := a.api.ACLTokens().Bootstrap(nil)
		if err != nil {
			return err // no leader yet
		}
		secret = token.SecretID
		return nil
	})
	c, err := api.NewClient(&api.Config{Address: proc.Addr, Token: secret})
	must.NoError(t, err)
	proc.WaitReadyWith(c, readyTimeout)
	a.api = c
	return a, secret
}
