package httpserver

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
)

// DecodeBody decodes a JSON request body into out, naming what it was
// decoding in the error.
func DecodeBody(r *http.Request, out any, what string) error {
	if r.Body == nil || r.Body == http.NoBody {
		return BadRequest("missing request body: expected %s as JSON", what)
	}
	dec := json.NewDecoder(r.Body)
	if err := dec.Decode(out); err != nil {
		return DecodeError(err, what)
	}
	if dec.More() {
		return BadRequest("failed to decode %s: unexpected data after the JSON value", what)
	}
	return nil
}

// DecodeError turns a JSON decoding error into the error the client sees:
// 413 for an oversized body, else 400 naming the JSON problem.
func DecodeError(err error, what string) error {
	var tooLarge *bodyLimitError
	if errors.As(err, &tooLarge) {
		return err
	}
	if errors.Is(err, io.EOF) {
		return BadRequest("failed to decode %s: empty request body", what)
	}
	return BadRequest("failed to decode %s: %v", what, err)
}

// ReadBody reads a whole request body for handlers that look at it twice
// (as typed values and as raw JSON).
func ReadBody(r *http.Request, what string) ([]byte, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, BadRequest("missing request body: expected %s as JSON", what)
	}
	data, err := io.ReadAll(r.Body)
	if err != nil {
		var tooLarge *bodyLimitError
		if errors.As(err, &tooLarge) {
			return nil, err
		}
		return nil, BadRequest("read request body: %v", err)
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		return nil, BadRequest("failed to decode %s: empty request body", what)
	}
	return data, nil
}

// UnmarshalBody decodes JSON read by ReadBody.
func UnmarshalBody(data []byte, out any, what string) error {
	if err := json.Unmarshal(data, out); err != nil {
		return BadRequest("failed to decode %s: %v", what, err)
	}
	return nil
}
