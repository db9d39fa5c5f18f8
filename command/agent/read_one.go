package agent

import (
	"context"
	"net/http"

	"github.com/drover-io/drover/command/agent/convert"
	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/nomad"
)

// readOne serves a GET of the one object key names: it reads it through
// the server, answers 404 with notFound when there is none, and converts
// it for the wire.
func readOne[T, W any](s *HTTPServer, w http.ResponseWriter, r *http.Request, key string, opts httpserver.QueryOptions,
	read func(*nomad.Server, context.Context, string, nomad.QueryOptions) (*T, nomad.QueryMeta, error),
	notFound string, toAPI func(*T) W) (any, error) {
	out, err := serveRead(s, w, r, opts, func(srv *nomad.Server, ctx context.Context, q nomad.QueryOptions) (*T, nomad.QueryMeta, error) {
		return read(srv, ctx, key, q)
	})
	if err != nil {
		return nil, err
	}
	if out == nil {
		return nil, httpserver.NotFound("%s", notFound)
	}
	return toAPI(out), nil
}

// readList serves a GET of a list the server reads, each item converted
// for the wire.
func readList[T, W any](s *HTTPServer, w http.ResponseWriter, r *http.Request, read serverRead[[]T], toAPI func(T) W) (any, error) {
	opts, err := httpserver.ParseQueryOptions(r)
	if err != nil {
		return nil, err
	}
	items, err := serveRead(s, w, r, opts, read)
	if err != nil {
		return nil, err
	}
	return convert.List(items, toAPI), nil
}
