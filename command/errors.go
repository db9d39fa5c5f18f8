package command

import (
	"errors"
	"fmt"
	"net/url"

	"github.com/drover-io/drover/api"
)

// apiErrorLine turns a failed call to the agent into the one line the user
// sees. When the agent could not be reached at all the line names its
// address, which is usually what is wrong; otherwise it says what was being
// done, e.g. "Error querying job: Unexpected response code: 404 (job not
// found)".
func apiErrorLine(client *api.Client, doing string, err error) string {
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		return fmt.Sprintf("Error connecting to Drover at %s: %v", client.Address(), urlErr.Err)
	}
	return fmt.Sprintf("Error %s: %v", doing, err)
}
