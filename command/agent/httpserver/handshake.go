package httpserver

import (
	"context"
	"net/http"
	"strconv"
)

// TokenInHandshake is the option of a websocket route whose caller may
// send its ACL token in the socket's first frame instead of a header, as
// a browser must (it cannot set headers on a websocket): when the
// request asks for it (?ws_handshake=true), the route's check waits for
// the handler, which upgrades the connection, reads the token and calls
// HandshakeCheck before it does anything else. The route is long-lived.
func TokenInHandshake(r *Route) {
	r.Handshake = true
	r.LongLived = true
}

// WantsHandshake reports whether the request asks to send its token in
// the first frame.
func WantsHandshake(r *http.Request) bool {
	b, err := strconv.ParseBool(r.URL.Query().Get("ws_handshake"))
	return err == nil && b
}

// handshakeCheckKey carries a deferred route check in a request's context.
type handshakeCheckKey struct{}

// HandshakeCheck is the route's deferred check of a request that sends
// its token in the first frame: check, called with that token, returns
// the request to serve or the refusal. ok is false when the route was
// checked before the handler ran, as every other request is.
func HandshakeCheck(r *http.Request) (check func(token string) (*http.Request, error), ok bool) {
	check, ok = r.Context().Value(handshakeCheckKey{}).(func(string) (*http.Request, error))
	return check, ok
}

// deferCheck hands the handler the route's check, to be made with the
// token of the first frame.
func (s *Server) deferCheck(r *http.Request, rt *Route) *http.Request {
	check := func(token string) (*http.Request, error) {
		checked := r.Clone(r.Context())
		checked.Header.Del("Authorization")
		checked.Header.Set("X-Nomad-Token", token)
		return s.authorize(checked, rt.Need)
	}
	return r.WithContext(context.WithValue(r.Context(), handshakeCheckKey{}, check))
}
