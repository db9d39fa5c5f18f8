// Package website holds Drover's user documentation, in content/docs as
// Markdown. The package has no code: its tests keep the documentation in
// step with the code, and fail when a jobspec attribute, CLI command or
// flag, HTTP route, metric or agent configuration key that the code has is
// missing from the reference, when a relative link points nowhere, and
// when an example in examples/ does not validate.
package website
