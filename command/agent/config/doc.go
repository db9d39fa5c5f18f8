// Package config is the Drover agent's configuration: the Config type with
// its defaults (DefaultConfig, DevConfig), the HCL and JSON files that set
// it (LoadConfig), the Nomad settings those files may carry that Drover
// ignores or refuses, and Validate, which reports every problem at once.
//
// It only describes an agent; it starts nothing and listens on nothing.
// It must not import command/agent or its other subpackages (the agent
// imports it), nor net/http: serving is the agent's concern.
package config
