package api

import "net/url"

// ServiceRegistration is one registration of a service by the client that
// runs its allocation. The names are those of Nomad's.
type ServiceRegistration struct {
	ID          string
	ServiceName string
	Namespace   string
	NodeID      string
	Datacenter  string
	JobID       string
	AllocID     string
	Tags        []string
	Address     string
	Port        int
	CreateIndex uint64
	ModifyIndex uint64
}

// ServiceRegistrationListStub is the services of one namespace, as
// GET /v1/services lists them.
type ServiceRegistrationListStub struct {
	Namespace string
	Services  []*ServiceRegistrationStub
}

// ServiceRegistrationStub is one service's name and the union of its
// registrations' tags.
type ServiceRegistrationStub struct {
	ServiceName string
	Tags        []string
}

// Services reads and deletes service registrations.
type Services struct{ client *Client }

// Services returns the service registrations endpoint.
func (c *Client) Services() *Services { return &Services{client: c} }

// List returns the registered services, grouped by namespace.
func (s *Services) List(q *QueryOptions) ([]*ServiceRegistrationListStub, *QueryMeta, error) {
	var resp []*ServiceRegistrationListStub
	qm, err := s.client.query("/v1/services", &resp, q)
	if err != nil {
		return nil, nil, err
	}
	return resp, qm, nil
}

// Get returns every registration of the service name.
func (s *Services) Get(name string, q *QueryOptions) ([]*ServiceRegistration, *QueryMeta, error) {
	var resp []*ServiceRegistration
	qm, err := s.client.query("/v1/service/"+url.PathEscape(name), &resp, q)
	if err != nil {
		return nil, nil, err
	}
	return resp, qm, nil
}

// Delete removes the registration id of the service name.
func (s *Services) Delete(name, id string, q *WriteOptions) (*WriteMeta, error) {
	return s.client.delete("/v1/service/"+url.PathEscape(name)+"/"+url.PathEscape(id), nil, nil, q)
}
