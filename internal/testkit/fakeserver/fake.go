package fakeserver

import (
	"net/http"
)

// Fake is the shared half of a fake whose unscripted requests are refused
// and listed: it serves, keeps the script and gives the fake's Server
// Close, URL, Enqueue, Requests and Unexpected. A fake embeds it through
// an unexported alias (type fake = fakeserver.Fake[Reply, *Request]) so
// that only those methods join its API.
type Fake[R, Q any] struct {
	srv    *Server
	script *Script[R, Q]
}

// StartFake serves mux on 127.0.0.1 with script as the fake's script. A
// request mux does not route is refused: recorded in Unexpected and
// answered by refuse with the recorded line, in the API's error envelope.
func StartFake[R, Q any](name string, mux *http.ServeMux, script *Script[R, Q],
	refuse func(w http.ResponseWriter, line string),
) (*Fake[R, Q], error) {
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		refuse(w, script.Refuse(r.Method+" "+r.URL.Path, "not part of the fake"))
	})
	srv, err := Start(name, mux)
	if err != nil {
		return nil, err
	}
	return &Fake[R, Q]{srv: srv, script: script}, nil
}

// Close stops the server, ending open streams, and waits for its
// goroutines.
func (f *Fake[R, Q]) Close() { f.srv.Close() }

// URL is http://127.0.0.1:port, the base URL the API's client takes.
func (f *Fake[R, Q]) URL() string { return f.srv.URL() }

// Enqueue appends replies, used in order, one per request.
func (f *Fake[R, Q]) Enqueue(replies ...R) { f.script.Enqueue(replies...) }

// Requests returns the requests the fake served so far, oldest first.
func (f *Fake[R, Q]) Requests() []Q { return f.script.Requests() }

// Unexpected describes every request that had no script: other paths, and
// requests after the queue ran out.
func (f *Fake[R, Q]) Unexpected() []string { return f.script.Unexpected() }
