package httpmcp_test

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/mcpserver/httpmcp"
)

// BenchmarkCall is the transport's own cost per request: one tools/call
// POST in an open session, answered as an SSE stream, over a keep-alive
// loopback connection (the tool itself does nothing), serial and with
// 40 sessions in parallel. BenchmarkHTTPLoad in cmd/hermes-tools-mcp
// measures the whole server under load.
func BenchmarkCall(b *testing.B) {
	for _, tc := range []struct {
		name     string
		parallel bool
	}{{"serial", false}, {"40-sessions", true}} {
		b.Run(tc.name, func(b *testing.B) {
			f := newFixture(b)
			h := f.srv.HTTPHandler(httpmcp.Options{})
			ts := httptest.NewServer(h)
			defer ts.Close()
			defer h.Shutdown(b.Context())
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
			open := func() string {
				req, _ := http.NewRequest("POST", ts.URL+httpmcp.Endpoint, strings.NewReader(initBody))
				req.Header.Set("Content-Type", "application/json")
				resp, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				resp.Body.Close()
				return resp.Header.Get(headerSession)
			}
			do := func(sid string, i int) {
				req, _ := http.NewRequest("POST", ts.URL+httpmcp.Endpoint, strings.NewReader(call(i, "progress", map[string]any{"n": 0}, nil)))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set(headerSession, sid)
				resp, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				var buf [4096]byte
				n, _ := resp.Body.Read(buf[:])
				for {
					m, err := resp.Body.Read(buf[n%len(buf):])
					n += m
					if err != nil {
						break
					}
				}
				resp.Body.Close()
				if resp.StatusCode != 200 || n == 0 {
					b.Fatalf("status %d, %d bytes", resp.StatusCode, n)
				}
			}
			b.ReportAllocs()
			if !tc.parallel {
				sid := open()
				b.ResetTimer()
				for i := range b.N {
					do(sid, i)
				}
				return
			}
			sids := make(chan string, 40)
			for range 40 {
				sids <- open()
			}
			// 40 goroutines, one per session, whatever GOMAXPROCS is.
			procs := runtime.GOMAXPROCS(0)
			b.SetParallelism((40 + procs - 1) / procs)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				sid := <-sids
				defer func() { sids <- sid }()
				i := 0
				for pb.Next() {
					do(sid, i)
					i++
				}
			})
		})
	}
}
