package command

import (
	"fmt"
	"strings"

	"github.com/drover-io/drover/api"
)

// deploymentAction is what fail, pause, resume and promote share: find
// the deployment, act on it, say what happened.
type deploymentAction struct {
	name     string
	synopsis string
	help     string
	act      func(d *api.Deployments, id string) (*api.DeploymentUpdateResponse, *api.WriteMeta, error)
	done     string
}

// DeploymentActionCommand is one of "deployment fail|pause|resume|promote".
type DeploymentActionCommand struct {
	Meta
	action deploymentAction
}

func (c *DeploymentActionCommand) Help() string {
	return strings.TrimSpace(fmt.Sprintf(`
Usage: drover deployment %s [options] <deployment>

  %s
`, c.action.name, c.action.help) + clientOptionsHelp + `
Options:

  -verbose
    Show full IDs.
`)
}

func (c *DeploymentActionCommand) Synopsis() string { return c.action.synopsis }

func (c *DeploymentActionCommand) Run(args []string) int {
	var verbose bool
	fs := c.ClientFlagSet("deployment " + c.action.name)
	fs.BoolVar(&verbose, "verbose", false, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 1 {
		return usageError(c.Ui, "deployment "+c.action.name, "This command takes one argument: <deployment>")
	}
	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	d, ok := lookupDeployment(c.Meta, client, fs.Arg(0), verbose)
	if !ok {
		return exitError
	}
	resp, _, err := c.action.act(client.Deployments(), d.ID)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, c.action.name+" deployment", err))
		return exitError
	}
	c.Ui.Output(fmt.Sprintf("Deployment %q %s", shortID(d.ID, verbose), c.action.done))
	if resp.RevertedJobVersion != nil {
		c.Ui.Output(fmt.Sprintf("Job %q reverted to version %d", d.JobID, *resp.RevertedJobVersion))
	}
	if resp.EvalID != "" {
		c.Ui.Output(fmt.Sprintf("Evaluation %q created", shortID(resp.EvalID, verbose)))
	}
	return exitOK
}

var (
	deploymentFail = deploymentAction{
		name:     "fail",
		synopsis: "Manually fail a deployment",
		help: `Fails a running or paused deployment: no more of its job's allocations
  are replaced. When a group has auto_revert, the job is registered again
  as its latest stable version.`,
		act: func(d *api.Deployments, id string) (*api.DeploymentUpdateResponse, *api.WriteMeta, error) {
			return d.Fail(id, nil)
		},
		done: "failed",
	}
	deploymentPause = deploymentAction{
		name:     "pause",
		synopsis: "Pause a deployment",
		help: `Pauses a running deployment: no more of its job's allocations are
  replaced until it is resumed.`,
		act: func(d *api.Deployments, id string) (*api.DeploymentUpdateResponse, *api.WriteMeta, error) {
			return d.Pause(id, true, nil)
		},
		done: "paused",
	}
	deploymentResume = deploymentAction{
		name:     "resume",
		synopsis: "Resume a paused deployment",
		help:     `Resumes a paused deployment: it goes on with its next step.`,
		act: func(d *api.Deployments, id string) (*api.DeploymentUpdateResponse, *api.WriteMeta, error) {
			return d.Pause(id, false, nil)
		},
		done: "resumed",
	}
	deploymentPromote = deploymentAction{
		name:     "promote",
		synopsis: "Promote canaries in a deployment",
		help: `Promotes a deployment's canaries. Drover places no canaries yet (a job
  with canary > 0 is refused), so the server answers that there are none.`,
		act: func(d *api.Deployments, id string) (*api.DeploymentUpdateResponse, *api.WriteMeta, error) {
			return d.PromoteAll(id, nil)
		},
		done: "promoted",
	}
)
