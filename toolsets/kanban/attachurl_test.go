package kanban_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/toolsets/kanban"
)

// fileServer is the web a download reaches, on 127.0.0.1.
type fileServer struct {
	*httptest.Server
	mu     sync.Mutex
	paths  []string
	agents []string
}

func startFileServer(t *testing.T) *fileServer {
	t.Helper()
	fs := &fileServer{}
	mux := http.NewServeMux()
	mux.HandleFunc("/file.csv", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		fmt.Fprint(w, "a,b\n1,2\n")
	})
	mux.HandleFunc("/dir/", func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = nil // no type at all, not even a sniffed one
		fmt.Fprint(w, "%PDF-1.7 fake")
	})
	mux.HandleFunc("/redirect/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("n"))
		if n == 0 {
			fmt.Fprint(w, "landed")
			return
		}
		// Relative, as servers often send it.
		http.Redirect(w, r, strconv.Itoa(n-1), http.StatusFound)
	})
	mux.HandleFunc("/to", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", r.URL.Query().Get("u"))
		w.WriteHeader(http.StatusMovedPermanently)
	})
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "root") })
	mux.HandleFunc("/noloc", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusFound) })
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		chunk := make([]byte, 1<<20)
		for sent := 0; sent <= kanban.AttachmentMaxBytes; sent += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	mux.HandleFunc("/slowheader", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	mux.HandleFunc("/stall", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("partial"))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	fs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fs.mu.Lock()
		fs.paths = append(fs.paths, r.URL.Path)
		fs.agents = append(fs.agents, r.UserAgent())
		fs.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(fs.Close)
	return fs
}

func (fs *fileServer) requests() []string {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return slices.Clone(fs.paths)
}

func TestAttachURL(t *testing.T) {
	srv := startFileServer(t)
	home := t.TempDir()
	h := newHarnessWith(t, home, map[string]string{"HERMES_ALLOW_PRIVATE_URLS": "1"}, func(o *kanban.Options) {
		o.FetchTimeout = 300 * time.Millisecond
	})
	id := h.ok("kanban_create", obj{"title": "Sources", "assignee": "w"})["task_id"].(string)
	dir := filepath.Join(home, "kanban", "attachments", id)
	b := openBoard(t, filepath.Join(home, "kanban.db"))
	u := srv.URL

	tests := []struct {
		name        string
		args        obj
		wantFile    string
		wantContent string
		wantType    any
		wantErr     string
	}{
		{name: "type from the server, parameters dropped", args: obj{"url": u + "/file.csv"},
			wantFile: "file.csv", wantContent: "a,b\n1,2\n", wantType: "text/csv"},
		{name: "name from the decoded path, no type", args: obj{"url": " " + u + "/dir/My%20Report.pdf?x=1#top "},
			wantFile: "My Report.pdf", wantContent: "%PDF-1.7 fake", wantType: nil},
		{name: "filename and type given", args: obj{"url": u + "/file.csv", "filename": "data.txt", "content_type": "text/plain"},
			wantFile: "data.txt", wantContent: "a,b\n1,2\n", wantType: "text/plain"},
		{name: "title is the old filename", args: obj{"url": u + "/file.csv", "title": "old-name.csv"},
			wantFile: "old-name.csv", wantContent: "a,b\n1,2\n", wantType: "text/csv"},
		// Named after the URL asked for, not the one it redirected to.
		{name: "five redirects are followed", args: obj{"url": u + "/redirect/5"}, wantFile: "5", wantContent: "landed", wantType: "text/plain"},
		{name: "a path without a leaf", args: obj{"url": u + "/"}, wantFile: "download", wantContent: "root", wantType: "text/plain"},
		{name: "six are too many", args: obj{"url": u + "/redirect/6"}, wantErr: "kanban_attach_url: too many redirects fetching " + u + "/redirect/6"},
		{name: "not found", args: obj{"url": u + "/missing"}, wantErr: "kanban_attach_url: failed to fetch " + u + "/missing: Client error '404 Not Found' for url '" + u + "/missing'\nFor more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/404"},
		{name: "redirect without a Location", args: obj{"url": u + "/noloc"}, wantErr: "kanban_attach_url: failed to fetch " + u + "/noloc: Redirect response '302 Found' for url '" + u + "/noloc'"},
		{name: "redirect to cloud metadata", args: obj{"url": u + "/to?u=" + url.QueryEscape("http://169.254.169.254/latest/meta-data")},
			wantErr: "kanban_attach_url: URL blocked by SSRF protection (private/internal address): http://169.254.169.254/latest/meta-data"},
		{name: "redirect to another scheme", args: obj{"url": u + "/to?u=" + url.QueryEscape("ftp://example.com/x")},
			wantErr: "kanban_attach_url: unsupported URL scheme 'ftp'; only http/https are allowed"},
		{name: "file URL", args: obj{"url": "file:///etc/passwd"}, wantErr: "kanban_attach_url: unsupported URL scheme 'file'; only http/https are allowed"},
		{name: "no scheme", args: obj{"url": "example.com/x"}, wantErr: "kanban_attach_url: unsupported URL scheme ''; only http/https are allowed"},
		{name: "a secret in the URL", args: obj{"url": u + "/file.csv?api_key=sk-abcdefghijklmnopqrstuvwx123"},
			wantErr: "kanban_attach_url: Blocked: URL contains what appears to be an API key or token"},
		{name: "over 25 MB", args: obj{"url": u + "/big"}, wantErr: "kanban_attach_url: attachment exceeds 25 MB limit"},
		{name: "no response", args: obj{"url": u + "/slowheader"}, wantErr: "kanban_attach_url: failed to fetch " + u + "/slowheader: "},
		{name: "body stalls", args: obj{"url": u + "/stall"}, wantErr: "kanban_attach_url: failed to fetch " + u + "/stall: no data for 300ms"},
		{name: "nothing listening", args: obj{"url": "http://127.0.0.1:1/x"}, wantErr: "kanban_attach_url: failed to fetch http://127.0.0.1:1/x: "},
		{name: "url missing", args: obj{"url": "  "}, wantErr: "url is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := filesIn(t, dir)
			args := obj{"task_id": id}
			for k, v := range tt.args {
				args[k] = v
			}
			if tt.wantErr != "" {
				if msg := h.fail("kanban_attach_url", args); !strings.HasPrefix(msg, tt.wantErr) {
					t.Errorf("error = %q\nwant prefix %q", msg, tt.wantErr)
				}
				if after := filesIn(t, dir); !slices.Equal(after, before) {
					t.Errorf("a refused download left files: %v -> %v", before, after)
				}
				return
			}
			got := h.ok("kanban_attach_url", args)
			if got["size"] != float64(len(tt.wantContent)) {
				t.Errorf("result = %v", got)
			}
			if s := readAttachment(t, filepath.Join(dir, tt.wantFile)); s != tt.wantContent {
				t.Errorf("%s = %q", tt.wantFile, s)
			}
			atts, _ := b.ListAttachments(context.Background(), id)
			last := atts[len(atts)-1]
			if last.Filename != tt.wantFile || deref(last.ContentType) != tt.wantType || deref(last.UploadedBy) != "agent" {
				t.Errorf("row = %+v", last)
			}
		})
	}
	for _, p := range srv.requests() {
		if strings.Contains(p, "meta-data") {
			t.Errorf("a refused URL was requested: %s", p)
		}
	}
	for _, a := range srv.agents {
		if a != "hermes-kanban/attach" {
			t.Errorf("User-Agent = %q", a)
		}
	}
}

// TestAttachURLPolicy: loopback and private addresses are refused unless
// HERMES_ALLOW_PRIVATE_URLS or security.allow_private_urls allows them,
// before any request is sent; the check holds at the connection too.
func TestAttachURLPolicy(t *testing.T) {
	srv := startFileServer(t)
	tests := []struct {
		name    string
		config  string
		env     map[string]string
		allowed bool
	}{
		{name: "default"},
		{name: "environment", env: map[string]string{"HERMES_ALLOW_PRIVATE_URLS": "yes"}, allowed: true},
		{name: "security section", config: "security:\n  allow_private_urls: true\n", allowed: true},
		{name: "legacy browser section", config: "browser:\n  allow_private_urls: 'on'\n", allowed: true},
		{name: "environment says no over the config", config: "security:\n  allow_private_urls: true\n",
			env: map[string]string{"HERMES_ALLOW_PRIVATE_URLS": "0"}},
		{name: "web section is the web tools'", config: "web:\n  allow_private_urls: true\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			if tt.config != "" {
				writeFile(t, filepath.Join(home, "config.yaml"), tt.config)
			}
			env := map[string]string{}
			for k, v := range tt.env {
				env[k] = v
			}
			h := newHarness(t, home, env)
			id := h.ok("kanban_create", obj{"title": "t", "assignee": "w"})["task_id"].(string)
			before := len(srv.requests())
			m, isErr := h.call("kanban_attach_url", obj{"task_id": id, "url": srv.URL + "/file.csv"})
			if tt.allowed {
				if isErr {
					t.Fatalf("refused: %v", m)
				}
				return
			}
			want := "kanban_attach_url: URL blocked by SSRF protection (private/internal address): " + srv.URL + "/file.csv; to allow private addresses, set security.allow_private_urls: true in " + filepath.Join(home, "config.yaml") + ", or HERMES_ALLOW_PRIVATE_URLS=1"
			if !isErr || m["error"] != want {
				t.Errorf("result = %v\nwant %s", m, want)
			}
			if len(srv.requests()) != before {
				t.Error("the refused URL was requested")
			}
		})
	}
}

// flipResolver answers public for the first lookups of a name and
// loopback after: DNS rebinding between the check and the connection.
type flipResolver struct {
	mu     sync.Mutex
	calls  int
	public int
	target netip.Addr
}

func (r *flipResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls++
	if r.calls <= r.public {
		return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
	}
	return []netip.Addr{r.target}, nil
}

func TestAttachURLRebinding(t *testing.T) {
	srv := startFileServer(t)
	port := srv.Listener.Addr().(interface{ AddrPort() netip.AddrPort }).AddrPort().Port()
	home := t.TempDir()
	// Every lookup before the connection says public: only the dialer's
	// own lookup meets loopback, and refuses it.
	res := &flipResolver{public: 2, target: netip.MustParseAddr("127.0.0.1")}
	h := newHarnessWith(t, home, map[string]string{}, func(o *kanban.Options) { o.Resolver = res })
	id := h.ok("kanban_create", obj{"title": "t", "assignee": "w"})["task_id"].(string)
	target := fmt.Sprintf("http://rebind.example:%d/file.csv", port)
	msg := h.fail("kanban_attach_url", obj{"task_id": id, "url": target})
	if !strings.HasPrefix(msg, "kanban_attach_url: URL blocked by SSRF protection (private/internal address): "+target) {
		t.Errorf("rebinding: %s", msg)
	}
	if res.calls < 3 {
		t.Errorf("the connection was made without its own lookup (%d lookups)", res.calls)
	}
	if n := len(srv.requests()); n != 0 {
		t.Errorf("the server was reached %d times", n)
	}
	if _, err := os.Stat(filepath.Join(home, "kanban", "attachments", id)); !os.IsNotExist(err) {
		t.Errorf("a refused download created the task directory: %v", err)
	}
}
