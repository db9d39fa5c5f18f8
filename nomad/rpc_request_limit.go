package nomad

import (
	"fmt"
	"net"
)

// maxRPCRequestBytes bounds one JSON-RPC request. net/rpc's JSON codec
// decodes each request whole, so without a bound one peer, an anonymous
// one included, could make a server buffer a request of any size. The
// largest real requests carry a job (at most limits.job_max_size, 4 MiB by
// default, as JSON) or a batch of allocation updates: far below this.
const maxRPCRequestBytes = 64 << 20

// limitRequests caps each JSON value a peer sends on conn at max bytes:
// a read that would take the current one past it fails, and net/rpc
// then closes the connection. Values are told apart as the bytes are read
// (jsonValueEnds), so the cap holds per request whatever the peer
// pipelines.
func limitRequests(conn net.Conn, max int64) net.Conn {
	return &requestLimitConn{Conn: conn, max: max}
}

type requestLimitConn struct {
	net.Conn
	max  int64
	scan jsonValueScanner
}

func (c *requestLimitConn) Read(p []byte) (int, error) {
	if c.scan.current >= c.max {
		return 0, fmt.Errorf("RPC request larger than %d bytes", c.max)
	}
	// Never read past the cap of the value under way.
	if left := c.max - c.scan.current; int64(len(p)) > left {
		p = p[:left]
	}
	n, err := c.Conn.Read(p)
	c.scan.feed(p[:n])
	return n, err
}

// jsonValueScanner follows a stream of JSON values byte by byte, enough
// to know where each top-level object or array ends, and counts the bytes
// of the one under way.
type jsonValueScanner struct {
	current          int64 // bytes of the value under way
	depth            int
	inString, escape bool
}

func (s *jsonValueScanner) feed(p []byte) {
	for _, c := range p {
		s.current++
		switch {
		case s.inString:
			switch {
			case s.escape:
				s.escape = false
			case c == '\\':
				s.escape = true
			case c == '"':
				s.inString = false
			}
		case c == '"':
			s.inString = true
		case c == '{' || c == '[':
			s.depth++
		case c == '}' || c == ']':
			if s.depth > 0 {
				s.depth--
			}
			if s.depth == 0 {
				s.current = 0 // a request is complete
			}
		}
	}
}
