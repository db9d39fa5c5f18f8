package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/drover-io/drover/jobspec2"
)

// The file* types mirror one configuration file. Pointers and nil slices
// mean "not set in this file", so that a later file overrides only what it
// sets. gohcl rejects any key not listed here, with its position.
type fileConfig struct {
	Region     *string        `hcl:"region,optional"`
	Datacenter *string        `hcl:"datacenter,optional"`
	Name       *string        `hcl:"name,optional"`
	DataDir    *string        `hcl:"data_dir,optional"`
	BindAddr   *string        `hcl:"bind_addr,optional"`
	LogLevel   *string        `hcl:"log_level,optional"`
	Ports      *filePorts     `hcl:"ports,block"`
	Addresses  *fileAddresses `hcl:"addresses,block"`
	Advertise  *fileAddresses `hcl:"advertise,block"`
	Server     *fileServer    `hcl:"server,block"`
	Client     *fileClient    `hcl:"client,block"`
	Plugins    []*filePlugin  `hcl:"plugin,block"`
	Telemetry  *fileTelemetry `hcl:"telemetry,block"`
	TLS        *fileTLS       `hcl:"tls,block"`
	Limits     *fileLimits    `hcl:"limits,block"`
	ACL        *fileACL       `hcl:"acl,block"`
	// Rest holds the Nomad settings Drover has no use for (nomadOnly).
	Rest hcl.Body `hcl:",remain"`

	// ignored lists the Nomad settings Rest and the blocks' Rest held,
	// and notes the values of the file that mean nothing more.
	ignored, notes []string
}

type fileACL struct {
	Enabled   *bool          `hcl:"enabled,optional"`
	TokenTTL  *hcl.Attribute `hcl:"token_ttl,optional"`
	PolicyTTL *hcl.Attribute `hcl:"policy_ttl,optional"`
}

type filePorts struct {
	HTTP *int     `hcl:"http,optional"`
	RPC  *int     `hcl:"rpc,optional"`
	Rest hcl.Body `hcl:",remain"`
}

type fileAddresses struct {
	HTTP *string  `hcl:"http,optional"`
	RPC  *string  `hcl:"rpc,optional"`
	Rest hcl.Body `hcl:",remain"`
}

type fileServer struct {
	Enabled         *bool           `hcl:"enabled,optional"`
	BootstrapExpect *int            `hcl:"bootstrap_expect,optional"`
	NumSchedulers   *int            `hcl:"num_schedulers,optional"`
	ServerJoin      *fileServerJoin `hcl:"server_join,block"`
	// Nomad's older spelling, directly in the server block.
	RetryJoin     []string       `hcl:"retry_join,optional"`
	StartJoin     []string       `hcl:"start_join,optional"`
	RetryInterval *hcl.Attribute `hcl:"retry_interval,optional"`
	RetryMax      *int           `hcl:"retry_max,optional"`

	MinHeartbeatTTL        *hcl.Attribute `hcl:"min_heartbeat_ttl,optional"`
	MaxHeartbeatsPerSecond *float64       `hcl:"max_heartbeats_per_second,optional"`
	HeartbeatGrace         *hcl.Attribute `hcl:"heartbeat_grace,optional"`

	EnableEventBroker *bool   `hcl:"enable_event_broker,optional"`
	EventBufferSize   *int    `hcl:"event_buffer_size,optional"`
	Encrypt           *string `hcl:"encrypt,optional"`

	// JobMaxCount is Nomad's spelling of limits.job_max_count.
	JobMaxCount *int `hcl:"job_max_count,optional"`

	// Garbage collection (nomad/gc).
	JobGCInterval        *hcl.Attribute `hcl:"job_gc_interval,optional"`
	JobGCThreshold       *hcl.Attribute `hcl:"job_gc_threshold,optional"`
	EvalGCThreshold      *hcl.Attribute `hcl:"eval_gc_threshold,optional"`
	BatchEvalGCThreshold *hcl.Attribute `hcl:"batch_eval_gc_threshold,optional"`
	NodeGCThreshold      *hcl.Attribute `hcl:"node_gc_threshold,optional"`

	Rest hcl.Body `hcl:",remain"`
}

// legacyJoin is the join settings written directly in the server block.
func (s *fileServer) legacyJoin() *fileServerJoin {
	return &fileServerJoin{
		RetryJoin:     s.RetryJoin,
		StartJoin:     s.StartJoin,
		RetryInterval: s.RetryInterval,
		RetryMax:      s.RetryMax,
	}
}

type fileServerJoin struct {
	RetryJoin     []string       `hcl:"retry_join,optional"`
	StartJoin     []string       `hcl:"start_join,optional"`
	RetryInterval *hcl.Attribute `hcl:"retry_interval,optional"`
	RetryMax      *int           `hcl:"retry_max,optional"`
}

type fileClient struct {
	Enabled   *bool    `hcl:"enabled,optional"`
	Servers   []string `hcl:"servers,optional"`
	NodeClass *string  `hcl:"node_class,optional"`
	NodePool  *string  `hcl:"node_pool,optional"`
	StateDir  *string  `hcl:"state_dir,optional"`
	AllocDir  *string  `hcl:"alloc_dir,optional"`
	// Artifact bounds artifact archives (artifact.go).
	Artifact *fileArtifact `hcl:"artifact,block"`
	// HostVolumes are the host volumes offered to jobs (host_volume.go).
	HostVolumes []*fileHostVolume `hcl:"host_volume,block"`

	RegistrationSecret *string `hcl:"registration_secret,optional"`
	// Garbage collection of allocation directories (client/gc.go).
	GCInterval            *hcl.Attribute `hcl:"gc_interval,optional"`
	GCMaxAllocs           *int           `hcl:"gc_max_allocs,optional"`
	GCDiskUsageThreshold  *float64       `hcl:"gc_disk_usage_threshold,optional"`
	GCInodeUsageThreshold *float64       `hcl:"gc_inode_usage_threshold,optional"`
	GCParallelDestroys    *int           `hcl:"gc_parallel_destroys,optional"`
	// The node's ports and reservations (client_network.go).
	NetworkInterface *string       `hcl:"network_interface,optional"`
	MinDynamicPort   *int          `hcl:"min_dynamic_port,optional"`
	MaxDynamicPort   *int          `hcl:"max_dynamic_port,optional"`
	Reserved         *fileReserved `hcl:"reserved,block"`
	// The group networks with a namespace of their own (client_network.go).
	CNIPath             *string `hcl:"cni_path,optional"`
	CNIConfigDir        *string `hcl:"cni_config_dir,optional"`
	BridgeNetworkName   *string `hcl:"bridge_network_name,optional"`
	BridgeNetworkSubnet *string `hcl:"bridge_network_subnet,optional"`
	// Rest holds meta, options and chroot_env, which Nomad users write both as a block
	// (meta { k = "v" }) and as an attribute (meta = { k = "v" }), and the
	// Nomad settings Drover has no use for.
	Rest hcl.Body `hcl:",remain"`
	// settings is Rest without the Nomad settings (nomadOnly).
	settings hcl.Body
}

type filePlugin struct {
	Name   string            `hcl:"name,label"`
	Config *filePluginConfig `hcl:"config,block"`
}

type filePluginConfig struct {
	// Body holds the plugin's settings: attributes and, in HCL syntax,
	// nested blocks such as docker's gc { ... } (see pluginBody).
	Body hcl.Body `hcl:",remain"`
}

type fileTelemetry struct {
	CollectionInterval       *hcl.Attribute `hcl:"collection_interval,optional"`
	InMemoryInterval         *hcl.Attribute `hcl:"in_memory_collection_interval,optional"`
	InMemoryRetention        *hcl.Attribute `hcl:"in_memory_retention_period,optional"`
	DisableHostname          *bool          `hcl:"disable_hostname,optional"`
	PrometheusMetrics        *bool          `hcl:"prometheus_metrics,optional"`
	PublishAllocationMetrics *bool          `hcl:"publish_allocation_metrics,optional"`
	PublishNodeMetrics       *bool          `hcl:"publish_node_metrics,optional"`
	ServicePrefix            *string        `hcl:"service_prefix,optional"`
}

// LoadConfig applies the configuration at each path, in order, over a copy
// of base. A path is a file (HCL or JSON, told apart by their content) or
// a directory, whose *.hcl and *.json files are read in lexical order.
// Later files override what earlier ones set.
func LoadConfig(base *Config, paths ...string) (*Config, error) {
	cfg := base.Copy()
	for _, path := range paths {
		files, err := configFiles(path)
		if err != nil {
			return nil, err
		}
		for _, file := range files {
			if err := applyConfigFile(cfg, file); err != nil {
				return nil, err
			}
			cfg.Files = append(cfg.Files, file)
		}
	}
	return cfg, nil
}

// configFiles expands a -config path into the files it names.
func configFiles(path string) ([]string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("read config %s: %w", path, err)
	}
	if !info.IsDir() {
		return []string{path}, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, fmt.Errorf("read config directory %s: %w", path, err)
	}
	var files []string
	for _, e := range entries {
		ext := filepath.Ext(e.Name())
		if e.IsDir() || (ext != ".hcl" && ext != ".json") {
			continue
		}
		files = append(files, filepath.Join(path, e.Name()))
	}
	slices.Sort(files)
	return files, nil
}

// applyConfigFile parses one file and applies what it sets to cfg.
func applyConfigFile(cfg *Config, path string) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read config %s: %w", path, err)
	}
	fc, err := parseConfig(src, path)
	if err != nil {
		return err
	}
	if err := fc.applyTo(cfg); err != nil {
		return err
	}
	cfg.Warnings = append(cfg.Warnings, fc.warnings(path)...)
	return nil
}

// parseConfig decodes the HCL or JSON source of one configuration file.
// As Nomad does, it tells them apart by content, not by the file's name: a
// file that starts with "{" is JSON (Nomad's own test harness writes JSON
// to a file with no suffix).
func parseConfig(src []byte, filename string) (*fileConfig, error) {
	parser := hclparse.NewParser()
	var file *hcl.File
	var diags hcl.Diagnostics
	// The parsers recurse once per level of nesting; the same guard as a
	// jobspec's keeps a broken file from overflowing the stack.
	if isJSON(src) {
		if diag := jobspec2.CheckJSONNesting(src, filename, jobspec2.DefaultMaxDepth); diag != nil {
			return nil, fmt.Errorf("parse config: %w", hcl.Diagnostics{diag})
		}
		file, diags = parser.ParseJSON(src, filename)
	} else {
		if diag := jobspec2.CheckNesting(src, filename, jobspec2.ConfigSource, jobspec2.DefaultMaxDepth); diag != nil {
			return nil, fmt.Errorf("parse config: %w", hcl.Diagnostics{diag})
		}
		file, diags = parser.ParseHCL(src, filename)
	}
	if diags.HasErrors() {
		return nil, fmt.Errorf("parse config: %w", diags)
	}
	var fc fileConfig
	if diags := gohcl.DecodeBody(file.Body, nil, &fc); diags.HasErrors() {
		return nil, fmt.Errorf("parse config: %w", diags)
	}
	if err := fc.readNomadOnly(); err != nil {
		return nil, err
	}
	return &fc, nil
}

// isJSON reports whether src is a JSON document: its first character
// other than white space is "{".
func isJSON(src []byte) bool {
	trimmed := bytes.TrimLeft(src, " \t\r\n")
	return len(trimmed) > 0 && trimmed[0] == '{'
}

// applyTo sets on cfg every value the file sets.
func (fc *fileConfig) applyTo(cfg *Config) error {
	setString(&cfg.Region, fc.Region)
	setString(&cfg.Datacenter, fc.Datacenter)
	setString(&cfg.NodeName, fc.Name)
	setString(&cfg.DataDir, fc.DataDir)
	setString(&cfg.BindAddr, fc.BindAddr)
	setString(&cfg.LogLevel, fc.LogLevel)
	if p := fc.Ports; p != nil {
		setInt(&cfg.Ports.HTTP, p.HTTP)
		setInt(&cfg.Ports.RPC, p.RPC)
	}
	fc.Addresses.applyTo(&cfg.Addresses)
	fc.Advertise.applyTo(&cfg.AdvertiseAddrs)
	fc.TLS.applyTo(&cfg.TLS)
	var errs []error
	if s := fc.Server; s != nil {
		fc.enable(&cfg.Server.Enabled, s.Enabled, "server")
		setInt(&cfg.Server.BootstrapExpect, s.BootstrapExpect)
		setString(&cfg.Server.EncryptKey, s.Encrypt)
		if s.NumSchedulers != nil {
			n := *s.NumSchedulers
			cfg.Server.NumSchedulers = &n
		}
		setBool(&cfg.Server.EnableEventBroker, s.EnableEventBroker)
		setInt(&cfg.Server.EventBufferSize, s.EventBufferSize)
		setInt(&cfg.Limits.JobMaxCount, s.JobMaxCount)
		errs = append(errs, s.applyHeartbeat(&cfg.Server), s.applyGC(&cfg.Server))
		errs = append(errs, s.legacyJoin().applyTo(&cfg.Server))
		if s.ServerJoin != nil {
			errs = append(errs, s.ServerJoin.applyTo(&cfg.Server))
		}
	}
	if c := fc.Client; c != nil {
		fc.enable(&cfg.Client.Enabled, c.Enabled, "client")
		errs = append(errs, c.applyTo(&cfg.Client))
	}
	for _, p := range fc.Plugins {
		errs = append(errs, p.applyTo(cfg.Plugins))
	}
	if t := fc.Telemetry; t != nil {
		errs = append(errs, t.applyTo(&cfg.Telemetry))
	}
	// After the server block, so that limits.job_max_count wins over
	// Nomad's server.job_max_count when a file sets both.
	errs = append(errs, fc.Limits.applyTo(&cfg.Limits))
	if a := fc.ACL; a != nil {
		setBool(&cfg.ACL.Enabled, a.Enabled)
		errs = append(errs, setDuration(&cfg.ACL.TokenTTL, a.TokenTTL), setDuration(&cfg.ACL.PolicyTTL, a.PolicyTTL))
	}
	return errors.Join(errs...)
}

func (fa *fileAddresses) applyTo(a *Addresses) {
	if fa == nil {
		return
	}
	setString(&a.HTTP, fa.HTTP)
	setString(&a.RPC, fa.RPC)
}

// applyHeartbeat sets the node heartbeat settings written in the file.
func (s *fileServer) applyHeartbeat(c *ServerConfig) error {
	if s.MaxHeartbeatsPerSecond != nil {
		c.MaxHeartbeatsPerSecond = *s.MaxHeartbeatsPerSecond
	}
	return errors.Join(
		setDuration(&c.MinHeartbeatTTL, s.MinHeartbeatTTL),
		setDuration(&c.HeartbeatGrace, s.HeartbeatGrace),
	)
}

// applyGC sets the garbage collection settings written in the file.
func (s *fileServer) applyGC(c *ServerConfig) error {
	return errors.Join(
		setDuration(&c.JobGCInterval, s.JobGCInterval),
		setDuration(&c.JobGCThreshold, s.JobGCThreshold),
		setDuration(&c.EvalGCThreshold, s.EvalGCThreshold),
		setDuration(&c.BatchEvalGCThreshold, s.BatchEvalGCThreshold),
		setDuration(&c.NodeGCThreshold, s.NodeGCThreshold),
	)
}

func (j *fileServerJoin) applyTo(s *ServerConfig) error {
	if j.RetryJoin != nil {
		s.RetryJoin = slices.Clone(j.RetryJoin)
	}
	if j.StartJoin != nil {
		s.StartJoin = slices.Clone(j.StartJoin)
	}
	setInt(&s.RetryMaxAttempts, j.RetryMax)
	return setDuration(&s.RetryInterval, j.RetryInterval)
}

func (fc *fileClient) applyTo(c *ClientConfig) error {
	if fc.Servers != nil {
		c.Servers = slices.Clone(fc.Servers)
	}
	setString(&c.NodeClass, fc.NodeClass)
	setString(&c.NodePool, fc.NodePool)
	setString(&c.StateDir, fc.StateDir)
	setString(&c.AllocDir, fc.AllocDir)
	if err := fc.Artifact.applyTo(&c.Artifact); err != nil {
		return err
	}
	if err := applyHostVolumes(c, fc.HostVolumes); err != nil {
		return err
	}
	setString(&c.RegistrationSecret, fc.RegistrationSecret)
	if err := setDuration(&c.GCInterval, fc.GCInterval); err != nil {
		return err
	}
	setInt(&c.GCMaxAllocs, fc.GCMaxAllocs)
	setInt(&c.GCParallelDestroys, fc.GCParallelDestroys)
	if fc.GCDiskUsageThreshold != nil {
		c.GCDiskUsageThreshold = *fc.GCDiskUsageThreshold
	}
	if fc.GCInodeUsageThreshold != nil {
		c.GCInodeUsageThreshold = *fc.GCInodeUsageThreshold
	}
	if err := fc.applyNetwork(&c.Network); err != nil {
		return err
	}
	if fc.settings == nil {
		return nil
	}
	stringMaps, err := decodeStringMaps(fc.settings, "meta", "options", "chroot_env")
	if err != nil {
		return err
	}
	if c.Meta == nil {
		c.Meta = map[string]string{}
	}
	if c.Options == nil {
		c.Options = map[string]string{}
	}
	maps.Copy(c.Meta, stringMaps["meta"])
	maps.Copy(c.Options, stringMaps["options"])
	if env := stringMaps["chroot_env"]; env != nil {
		c.ChrootEnv = env
	}
	return nil
}

// decodeStringMaps reads each named map of strings from body, written either
// as an attribute (name = { ... }) or, in HCL syntax, as a block (name { ... }).
// Anything else in body is an error.
func decodeStringMaps(body hcl.Body, names ...string) (map[string]map[string]string, error) {
	schema := &hcl.BodySchema{}
	for _, name := range names {
		schema.Attributes = append(schema.Attributes, hcl.AttributeSchema{Name: name})
	}
	_, native := body.(*hclsyntax.Body)
	if native {
		for _, name := range names {
			schema.Blocks = append(schema.Blocks, hcl.BlockHeaderSchema{Type: name})
		}
	}
	content, diags := body.Content(schema)
	if diags.HasErrors() {
		return nil, fmt.Errorf("parse config: %w", diags)
	}
	out := map[string]map[string]string{}
	for name, attr := range content.Attributes {
		m := map[string]string{}
		if diags := gohcl.DecodeExpression(attr.Expr, nil, &m); diags.HasErrors() {
			return nil, fmt.Errorf("parse config: %w", diags)
		}
		out[name] = m
	}
	for _, block := range content.Blocks {
		attrs, diags := block.Body.JustAttributes()
		if diags.HasErrors() {
			return nil, fmt.Errorf("parse config: %w", diags)
		}
		m := out[block.Type]
		if m == nil {
			m = map[string]string{}
			out[block.Type] = m
		}
		for key, attr := range attrs {
			var v string
			if diags := gohcl.DecodeExpression(attr.Expr, nil, &v); diags.HasErrors() {
				return nil, fmt.Errorf("parse config: %w", diags)
			}
			m[key] = v
		}
	}
	return out, nil
}

func (fp *filePlugin) applyTo(plugins map[string]*PluginConfig) error {
	p := plugins[fp.Name]
	if p == nil {
		p = &PluginConfig{Name: fp.Name, Config: map[string]any{}}
		plugins[fp.Name] = p
	}
	if fp.Config == nil {
		return nil
	}
	values, err := pluginBody(fp.Config.Body)
	if err != nil {
		return err
	}
	maps.Copy(p.Config, values)
	return nil
}

// attrToGo evaluates a literal attribute into plain Go values by way of its
// JSON form.
func attrToGo(attr *hcl.Attribute) (any, error) {
	val, diags := attr.Expr.Value(nil)
	if diags.HasErrors() {
		return nil, fmt.Errorf("parse config: %w", diags)
	}
	raw, err := ctyjson.SimpleJSONValue{Value: val}.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", rangePos(attr.Range), attr.Name, err)
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("%s: %s: %w", rangePos(attr.Range), attr.Name, err)
	}
	return out, nil
}

func (ft *fileTelemetry) applyTo(t *TelemetryConfig) error {
	setBool(&t.DisableHostname, ft.DisableHostname)
	setBool(&t.PrometheusMetrics, ft.PrometheusMetrics)
	setBool(&t.PublishAllocationMetrics, ft.PublishAllocationMetrics)
	setBool(&t.PublishNodeMetrics, ft.PublishNodeMetrics)
	setString(&t.ServicePrefix, ft.ServicePrefix)
	return errors.Join(
		setDuration(&t.CollectionInterval, ft.CollectionInterval),
		setDuration(&t.InMemoryInterval, ft.InMemoryInterval),
		setDuration(&t.InMemoryRetention, ft.InMemoryRetention),
	)
}

// setDuration parses a Go duration string ("10s", "1m30s") from attr, naming
// the file, line and column when it is not one.
func setDuration(dst *time.Duration, attr *hcl.Attribute) error {
	if attr == nil {
		return nil
	}
	var s string
	if diags := gohcl.DecodeExpression(attr.Expr, nil, &s); diags.HasErrors() {
		return fmt.Errorf("parse config: %w", diags)
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%s: %s = %q is not a duration (use a value such as \"10s\" or \"1m\")", rangePos(attr.Expr.Range()), attr.Name, s)
	}
	*dst = d
	return nil
}

// rangePos formats the start of r as file:line,col.
func rangePos(r hcl.Range) string {
	return fmt.Sprintf("%s:%d,%d", r.Filename, r.Start.Line, r.Start.Column)
}

func setString(dst *string, v *string) {
	if v != nil {
		*dst = *v
	}
}

func setInt(dst *int, v *int) {
	if v != nil {
		*dst = *v
	}
}

func setBool(dst *bool, v *bool) {
	if v != nil {
		*dst = *v
	}
}
