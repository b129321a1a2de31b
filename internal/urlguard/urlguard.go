// Package urlguard decides whether a URL a model asked for may be fetched:
// never a cloud metadata endpoint, never a URL carrying a secret or a
// password, and a private or loopback address only when the configuration
// allows it. CheckURL runs on the URL before a request; Dialer runs on
// every connection, after DNS, and dials only the address it checked, so
// neither a DNS answer nor a redirect can smuggle a request through.
//
// Hosts are read the way a browser reads them (ParseHost): 2852039166,
// 0251.0376.0251.0376 and [::ffff:a9fe:a9fe] are all 169.254.169.254.
package urlguard

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/hermes-go/hermes/internal/hermeshome"
)

// The refusal texts are the Python Hermes' own (ErrUserinfo excepted: it
// has no such check), so a model sees the same words whichever
// implementation serves it. BlockedError adds the host and the hint.
var (
	ErrSecret   = errors.New("Blocked: URL contains what appears to be an API key or token. Secrets must not be sent in URLs.")
	ErrUserinfo = errors.New("Blocked: URL contains a user name or password (user:password@…); credentials must not be sent in URLs.")
	ErrMetadata = errors.New("Blocked: URL targets a cloud metadata endpoint")
	ErrPrivate  = errors.New("Blocked: URL targets a private or internal network address")
	ErrScheme   = errors.New("Blocked: only http and https URLs can be fetched")
)

// Policy says what a caller may reach.
type Policy struct {
	// AllowPrivate permits loopback, private-range, link-local and
	// reserved addresses (cloud metadata stays refused).
	AllowPrivate bool
	// AllowHint names the setting that sets AllowPrivate, as a clause
	// ("set web.allow_private_urls: true in /home/u/.hermes/config.yaml");
	// a refusal of a private address ends with it.
	AllowHint string
}

// AllowPrivateHint is Policy.AllowHint for a boolean key of the Hermes
// config file in home.
func AllowPrivateHint(home, key string) string {
	file := hermeshome.ConfigFile
	if home != "" {
		file = filepath.Join(home, file)
	}
	return fmt.Sprintf("set %s: true in %s", key, file)
}

// BlockedError is a refusal. It matches its sentinel with errors.Is, and
// its message is the sentinel's text with what was refused and, for a
// private address, how to allow it. It never holds a secret.
type BlockedError struct {
	// Target is the host as written (the scheme for ErrScheme), or empty
	// when it cannot be shown.
	Target string
	// Addr is the address Target was read as or resolved to, when it
	// differs from Target.
	Addr netip.Addr
	// Err is ErrSecret, ErrUserinfo, ErrMetadata, ErrPrivate or ErrScheme.
	Err error
	// Hint is Policy.AllowHint, for ErrPrivate.
	Hint string
}

func (e *BlockedError) Error() string {
	msg := e.Err.Error()
	if what := e.what(); what != "" {
		// After the first clause, so the sentinel's opening words stay
		// the message's prefix.
		cut := len(msg)
		if i := strings.IndexAny(msg, ".;"); i >= 0 {
			cut = i
		}
		msg = msg[:cut] + " (" + what + ")" + msg[cut:]
	}
	if e.Hint != "" {
		msg += "; to allow it, " + e.Hint
	}
	return msg
}

func (e *BlockedError) what() string {
	switch {
	case e.Target == "":
		return ""
	case errors.Is(e.Err, ErrScheme):
		return "scheme " + e.Target
	case e.Addr.IsValid() && e.Addr.String() != e.Target:
		return "host " + e.Target + ", address " + e.Addr.String()
	}
	return "host " + e.Target
}

func (e *BlockedError) Unwrap() error { return e.Err }

// blocked builds the refusal of sentinel err under p.
func (p Policy) blocked(target string, addr netip.Addr, err error) *BlockedError {
	e := &BlockedError{Target: target, Addr: addr, Err: err}
	if errors.Is(err, ErrPrivate) {
		e.Hint = p.AllowHint
	}
	return e
}

// checkAddr refuses an address target was read as or resolved to.
func (p Policy) checkAddr(target string, a netip.Addr) error {
	if err := addrRefusal(a, p.AllowPrivate); err != nil {
		return p.blocked(target, a, err)
	}
	return nil
}

// checkName refuses a host name before it is looked up.
func (p Policy) checkName(target, name string) error {
	if err := nameRefusal(name, p.AllowPrivate); err != nil {
		return p.blocked(target, netip.Addr{}, err)
	}
	return nil
}

// Resolver looks up a host's addresses; *net.Resolver satisfies it.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// CheckURL validates a URL before any request: secrets in any encoding,
// credentials, scheme, and the host in any spelling. Host names are
// resolved too when r is non-nil; a name that does not resolve passes,
// since the fetch will fail (and the Dialer checks what it connects to).
func CheckURL(ctx context.Context, raw string, p Policy, r Resolver) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if containsSecret(raw) {
		return nil, p.blocked(displayHost(raw), netip.Addr{}, ErrSecret)
	}
	u, err := url.Parse(raw)
	if err == nil && u.Scheme != "http" && u.Scheme != "https" {
		return nil, p.blocked(u.Scheme, netip.Addr{}, ErrScheme)
	}
	// Also when Go cannot parse the URL: a browser may still send it.
	if hasUserinfo(raw) || err == nil && u.User != nil {
		return nil, p.blocked(displayHost(raw), netip.Addr{}, ErrUserinfo)
	}
	if err != nil {
		// Without the URL, which url.Error quotes in full.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("not a valid URL: %w", err)
	}
	hostname := u.Hostname()
	if hostname == "" {
		return nil, errors.New("not a valid URL: it has no host; write it as https://host/path")
	}
	h, err := ParseHost(hostname)
	if err != nil {
		return nil, fmt.Errorf("not a valid URL: %w", err)
	}
	if h.Addr.IsValid() {
		if err := p.checkAddr(hostname, h.Addr); err != nil {
			return nil, err
		}
		return u, nil
	}
	if err := p.checkName(hostname, h.Name); err != nil {
		return nil, err
	}
	if r == nil {
		return u, nil
	}
	addrs, err := r.LookupNetIP(ctx, "ip", h.Name)
	if err != nil {
		return u, nil
	}
	for _, a := range addrs {
		if err := p.checkAddr(hostname, a); err != nil {
			return nil, err
		}
	}
	return u, nil
}

// CheckAddr applies the policy to one IP address.
func CheckAddr(a netip.Addr, p Policy) error {
	return p.checkAddr(a.String(), a)
}
