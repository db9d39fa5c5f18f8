package httpserver

import (
	"net/http"
	"strconv"

	"github.com/drover-io/drover/nomad"
)

// Response headers of Nomad's API.
const (
	HeaderIndex       = "X-Nomad-Index"
	HeaderKnownLeader = "X-Nomad-KnownLeader"
	HeaderLastContact = "X-Nomad-LastContact"
)

// SetQueryMeta sets the headers every read carries: the index the data
// reflects, whether a leader is known and how long ago this server heard
// from it. As in Nomad, a list of a table nothing was ever written to is
// at index 0 (its clients poll rather than block on it).
func SetQueryMeta(w http.ResponseWriter, meta nomad.QueryMeta) {
	SetIndex(w, meta.Index)
	h := w.Header()
	h.Set(HeaderKnownLeader, strconv.FormatBool(meta.KnownLeader))
	h.Set(HeaderLastContact, strconv.FormatInt(meta.LastContact.Milliseconds(), 10))
}

// SetIndex sets X-Nomad-Index, which writes carry too.
func SetIndex(w http.ResponseWriter, index uint64) {
	w.Header().Set(HeaderIndex, strconv.FormatUint(index, 10))
}
