package command

import (
	"flag"
	"fmt"
	"strconv"

	"github.com/drover-io/drover/api"
)

// tlsFlags are the client flags that configure HTTPS. Each is nil unless
// given, so that a flag overrides the environment only when it is there.
type tlsFlags struct {
	caCert, caPath, clientCert, clientKey, serverName *string
	skipVerify                                        *bool
}

func (f *tlsFlags) register(fs *flag.FlagSet) {
	for name, dst := range map[string]**string{
		"ca-cert":         &f.caCert,
		"ca-path":         &f.caPath,
		"client-cert":     &f.clientCert,
		"client-key":      &f.clientKey,
		"tls-server-name": &f.serverName,
	} {
		fs.Func(name, "", func(v string) error {
			*dst = &v
			return nil
		})
	}
	fs.BoolFunc("tls-skip-verify", "", func(v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("%q is not true or false", v)
		}
		f.skipVerify = &b
		return nil
	})
}

// applyTo sets the flags given on cfg, over what the environment set.
func (f *tlsFlags) applyTo(cfg *api.Config) {
	if *f == (tlsFlags{}) {
		return
	}
	if cfg.TLSConfig == nil {
		cfg.TLSConfig = &api.TLSConfig{}
	}
	t := cfg.TLSConfig
	for _, s := range []struct {
		dst *string
		v   *string
	}{
		{&t.CACert, f.caCert}, {&t.CAPath, f.caPath}, {&t.ClientCert, f.clientCert},
		{&t.ClientKey, f.clientKey}, {&t.TLSServerName, f.serverName},
	} {
		if s.v != nil {
			*s.dst = *s.v
		}
	}
	if f.skipVerify != nil {
		t.Insecure = *f.skipVerify
	}
}
