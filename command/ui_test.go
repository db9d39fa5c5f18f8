package command

import (
	"errors"
	"testing"

	"github.com/shoenig/test/must"
)

func TestUICommand(t *testing.T) {
	a, addr := testAgent(t)
	runDetached(t, addr, writeJob(t, "web", ""))
	runDetached(t, addr, writeJob(t, "web-2", ""))
	placeTestAlloc(t, a, "5f0e6a3c-aaaa-4222-8333-444455556666", "web", "e1", "n1")

	var opened []string
	// newCmd returns a command and what it has printed so far.
	newCmd := func(open func(string) error) (*UICommand, func() (string, string)) {
		ui := newTestUi()
		cmd := &UICommand{Meta: Meta{Ui: ui}, open: open}
		return cmd, func() (string, string) { return uiOutput(ui), ui.ErrorWriter.String() }
	}
	record := func(u string) error { opened = append(opened, u); return nil }

	cases := []struct {
		args []string
		want string
	}{
		{nil, addr + "/ui/jobs"},
		{[]string{"web"}, addr + "/ui/jobs/web@default"},    // exact, though web-2 shares the prefix
		{[]string{"web-"}, addr + "/ui/jobs/web-2@default"}, // a unique prefix
		{[]string{"5f0e6a"}, addr + "/ui/allocations/5f0e6a3c-aaaa-4222-8333-444455556666"},
	}
	for _, tc := range cases {
		cmd, out := newCmd(record)
		code := cmd.Run(append([]string{"-address", addr, "-show-url"}, tc.args...))
		stdout, stderr := out()
		must.Eq(t, 0, code, must.Sprint(stderr))
		must.Eq(t, tc.want+"\n", stdout)
	}
	must.SliceEmpty(t, opened, must.Sprint("-show-url opens nothing"))

	cmd, out := newCmd(record)
	must.Eq(t, 0, cmd.Run([]string{"-address", addr, "web"}))
	stdout, _ := out()
	must.Eq(t, `Opening URL "`+addr+`/ui/jobs/web@default"`+"\n", stdout)
	must.Eq(t, []string{addr + "/ui/jobs/web@default"}, opened)

	// Without a browser the URL is still there to open by hand.
	cmd, out = newCmd(func(string) error { return errors.New("no xdg-open on PATH") })
	must.Eq(t, 0, cmd.Run([]string{"-address", addr}))
	stdout, stderr := out()
	must.StrContains(t, stdout, addr+"/ui/jobs")
	must.StrContains(t, stderr, "Could not open a browser (no xdg-open on PATH)")

	cmd, out = newCmd(record)
	must.Eq(t, 1, cmd.Run([]string{"-address", addr, "nothing-like-it"}))
	_, stderr = out()
	must.StrContains(t, stderr, `No job or allocation with prefix or id "nothing-like-it" found`)

	cmd, out = newCmd(record)
	must.Eq(t, 1, cmd.Run([]string{"-address", addr, "a", "b"}))
	_, stderr = out()
	must.StrContains(t, stderr, "at most one argument")
}
