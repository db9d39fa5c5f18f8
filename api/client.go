package api

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Client talks to one agent's HTTP API. It is safe for concurrent use.
type Client struct {
	cfg  Config
	base *url.URL
	http *http.Client
}

// NewClient returns a client for the agent cfg names. A nil cfg, or an empty
// Address, falls back to DefaultConfig.
func NewClient(cfg *Config) (*Client, error) {
	if cfg == nil {
		cfg = DefaultConfig()
	}
	if cfg.envErr != nil {
		return nil, cfg.envErr
	}
	c := &Client{cfg: *cfg}
	c.cfg.TLSConfig = cfg.TLSConfig.Copy()
	if c.cfg.Address == "" {
		c.cfg.Address = DefaultConfig().Address
	}
	base, err := parseAddress(c.cfg.Address)
	if err != nil {
		return nil, err
	}
	c.base = base
	c.cfg.Address = base.String()

	c.http = c.cfg.HttpClient
	if c.http == nil {
		c.http = defaultHTTPClient()
		if err := configureTLS(c.http, c.cfg.TLSConfig); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Address returns the agent's base URL, with its scheme.
func (c *Client) Address() string {
	return c.cfg.Address
}

// defaultHTTPClient returns a client without an overall timeout: a blocking
// query may wait minutes by design, so requests end through their context.
func defaultHTTPClient() *http.Client {
	transport := http.DefaultTransport.(*http.Transport).Clone()
	return &http.Client{Transport: transport}
}

// parseAddress turns a user's agent address into a base URL, assuming plain
// HTTP when the scheme is left out.
func parseAddress(addr string) (*url.URL, error) {
	raw := addr
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("invalid agent address %q: %w", addr, err)
	}
	if err := checkAddress(u); err != nil {
		return nil, fmt.Errorf("invalid agent address %q: %w", addr, err)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return u, nil
}

func checkAddress(u *url.URL) error {
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("scheme %q is not http or https", u.Scheme)
	case u.Hostname() == "":
		return fmt.Errorf("no host")
	case u.User != nil:
		return fmt.Errorf("credentials belong in the token, not the address")
	case u.RawQuery != "" || u.Fragment != "":
		return fmt.Errorf("an address carries no query or fragment")
	}
	if port := u.Port(); port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("port %q is not between 1 and 65535", port)
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return fmt.Errorf("empty port")
	}
	return nil
}
