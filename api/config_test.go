package api

import (
	"testing"

	"github.com/shoenig/test/must"
)

func TestDefaultConfig_Environment(t *testing.T) {
	vars := []string{
		"DROVER_ADDR", "NOMAD_ADDR", "DROVER_REGION", "NOMAD_REGION",
		"DROVER_NAMESPACE", "NOMAD_NAMESPACE", "DROVER_TOKEN", "NOMAD_TOKEN",
		"DROVER_CACERT", "NOMAD_CACERT", "DROVER_CAPATH", "NOMAD_CAPATH",
		"DROVER_CLIENT_CERT", "NOMAD_CLIENT_CERT", "DROVER_CLIENT_KEY", "NOMAD_CLIENT_KEY",
		"DROVER_TLS_SERVER_NAME", "NOMAD_TLS_SERVER_NAME", "DROVER_SKIP_VERIFY", "NOMAD_SKIP_VERIFY",
	}
	cases := []struct {
		name string
		env  map[string]string
		want Config
	}{
		{
			name: "nothing set",
			want: Config{Address: "http://127.0.0.1:4646"},
		},
		{
			name: "Nomad's variables alone",
			env: map[string]string{
				"NOMAD_ADDR": "http://nomad:4646", "NOMAD_REGION": "eu",
				"NOMAD_NAMESPACE": "batch", "NOMAD_TOKEN": "nomad-secret",
			},
			want: Config{Address: "http://nomad:4646", Region: "eu", Namespace: "batch", Token: "nomad-secret"},
		},
		{
			name: "Drover's variables win",
			env: map[string]string{
				"NOMAD_ADDR": "http://nomad:4646", "DROVER_ADDR": "http://drover:4646",
				"NOMAD_REGION": "eu", "DROVER_REGION": "us",
				"NOMAD_NAMESPACE": "batch", "DROVER_NAMESPACE": "web",
				"NOMAD_TOKEN": "nomad-secret", "DROVER_TOKEN": "drover-secret",
			},
			want: Config{Address: "http://drover:4646", Region: "us", Namespace: "web", Token: "drover-secret"},
		},
		{
			name: "Nomad's TLS variables",
			env: map[string]string{
				"NOMAD_CACERT": "/ca.pem", "NOMAD_CAPATH": "/cas", "NOMAD_CLIENT_CERT": "/cli.pem",
				"NOMAD_CLIENT_KEY": "/cli-key.pem", "NOMAD_TLS_SERVER_NAME": "server.global.nomad",
				"NOMAD_SKIP_VERIFY": "true",
			},
			want: Config{Address: "http://127.0.0.1:4646", TLSConfig: &TLSConfig{
				CACert: "/ca.pem", CAPath: "/cas", ClientCert: "/cli.pem", ClientKey: "/cli-key.pem",
				TLSServerName: "server.global.nomad", Insecure: true,
			}},
		},
		{
			name: "Drover's TLS variables win",
			env: map[string]string{
				"NOMAD_CACERT": "/nomad-ca.pem", "DROVER_CACERT": "/drover-ca.pem",
				"NOMAD_SKIP_VERIFY": "true", "DROVER_SKIP_VERIFY": "false",
				"NOMAD_TLS_SERVER_NAME": "nomad", "DROVER_TLS_SERVER_NAME": "drover",
			},
			want: Config{Address: "http://127.0.0.1:4646", TLSConfig: &TLSConfig{
				CACert: "/drover-ca.pem", TLSServerName: "drover",
			}},
		},
		{
			name: "an empty Drover variable does not hide Nomad's",
			env:  map[string]string{"DROVER_ADDR": "", "NOMAD_ADDR": "http://nomad:4646"},
			want: Config{Address: "http://nomad:4646"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, v := range vars {
				t.Setenv(v, tc.env[v])
			}
			must.Eq(t, tc.want, *DefaultConfig())
		})
	}
}

func TestNewClient_BadSkipVerify(t *testing.T) {
	t.Setenv("DROVER_SKIP_VERIFY", "")
	t.Setenv("NOMAD_SKIP_VERIFY", "yes please")
	_, err := NewClient(DefaultConfig())
	must.ErrorContains(t, err, `NOMAD_SKIP_VERIFY="yes please" is not true or false`)
}

func TestNewClient_Address(t *testing.T) {
	cases := []struct {
		in, want string
	}{
		{"127.0.0.1:4646", "http://127.0.0.1:4646"},
		{"localhost:4646", "http://localhost:4646"},
		{"http://127.0.0.1:4646/", "http://127.0.0.1:4646"},
		{"https://drover.example.com", "https://drover.example.com"},
		{"http://[::1]:4646", "http://[::1]:4646"},
		{"http://proxy:8080/drover/", "http://proxy:8080/drover"},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			c, err := NewClient(&Config{Address: tc.in})
			must.NoError(t, err)
			must.Eq(t, tc.want, c.Address())
		})
	}
}

func TestNewClient_BadAddress(t *testing.T) {
	cases := []struct {
		addr, reason string
	}{
		{"ftp://127.0.0.1:4646", `scheme "ftp" is not http or https`},
		{"unix:///var/run/drover.sock", `scheme "unix"`},
		{"http://:4646", "no host"},
		{"127.0.0.1:99999", `port "99999"`},
		{"127.0.0.1:0", `port "0"`},
		{"127.0.0.1:", "empty port"},
		{"http://user:pw@127.0.0.1:4646", "credentials"},
		{"http://127.0.0.1:4646/?x=1", "no query"},
		{"http://drover host:4646", "invalid character"},
		{"127.0.0.1:46x6", "invalid port"},
	}
	for _, tc := range cases {
		t.Run(tc.addr, func(t *testing.T) {
			c, err := NewClient(&Config{Address: tc.addr})
			must.Nil(t, c)
			must.ErrorContains(t, err, tc.addr)
			must.ErrorContains(t, err, tc.reason)
		})
	}
}

func TestNewClient_NilConfigUsesEnvironment(t *testing.T) {
	t.Setenv("DROVER_ADDR", "127.0.0.1:5656")
	c, err := NewClient(nil)
	must.NoError(t, err)
	must.Eq(t, "http://127.0.0.1:5656", c.Address())
}

func TestNewClient_CopiesConfig(t *testing.T) {
	cfg := &Config{Address: "127.0.0.1:4646", Token: "one"}
	c, err := NewClient(cfg)
	must.NoError(t, err)
	cfg.Token = "two"
	must.Eq(t, "one", c.cfg.Token)
	must.Eq(t, "127.0.0.1:4646", cfg.Address, must.Sprint("the caller's config is not rewritten"))
}

func TestNewClient_NoOverallTimeout(t *testing.T) {
	c, err := NewClient(&Config{Address: "127.0.0.1:4646"})
	must.NoError(t, err)
	must.Eq(t, 0, c.http.Timeout, must.Sprint("a timeout would cut blocking queries short"))
}
