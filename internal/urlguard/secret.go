package urlguard

import (
	"net/url"
	"strings"

	"github.com/hermes-go/hermes/internal/redact"
)

// maxDecodeRounds bounds repeated percent-decoding. Whoever receives a URL
// can decode it as often as they like, so every level counts; a URL still
// changing after this many rounds is refused as unreadable rather than
// decoded without end.
const maxDecodeRounds = 16

// containsSecret reports whether s, or any lenient decoding of it, holds a
// provider token. Decoding is lenient because a strict decoder gives up at
// the first malformed escape, and a single "%zz" elsewhere in the URL
// must not hide an encoded key.
func containsSecret(s string) bool {
	for range maxDecodeRounds {
		if redact.ContainsToken(s) || strings.Contains(s, "+") && redact.ContainsToken(strings.ReplaceAll(s, "+", " ")) {
			return true
		}
		d := unescapeOnce(s)
		if d == s {
			return false
		}
		s = d
	}
	return true
}

// unescapeOnce decodes every valid %XX escape and keeps malformed ones as
// they are, as browsers and most servers do.
func unescapeOnce(s string) string {
	i := strings.IndexByte(s, '%')
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			hi, _ := digitValue(s[i+1])
			lo, _ := digitValue(s[i+2])
			b.WriteByte(byte(hi<<4 | lo))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isHex(c byte) bool {
	_, ok := digitValue(c)
	return ok
}

// RedactURL returns raw fit to show in a refusal: provider tokens masked
// in whichever encoding carried them, and any user:password@ removed.
func RedactURL(raw string) string {
	s := redact.String(stripUserinfo(raw))
	for i := 0; containsSecret(s); i++ {
		if i == maxDecodeRounds {
			return "[URL withheld: it carries a secret]"
		}
		s = redact.String(unescapeOnce(s))
	}
	return s
}

// RedactTarget is a refused request's URL as it may be logged and shown:
// no userinfo, the query replaced by "?…", and any secret in the rest
// redacted.
func RedactTarget(u *url.URL) string {
	c := *u
	c.User = nil
	q := ""
	if c.RawQuery != "" {
		q = "?…"
	}
	c.RawQuery, c.Fragment = "", ""
	return RedactURL(c.String()) + q
}

// authority locates a URL's authority leniently, so it works on URLs Go
// refuses to parse: after the scheme and any slashes or backslashes (as
// browsers skip them), up to the first "/", "?" or "#". A backslash does
// not end it, so it is never shorter than what a browser or Go reads.
func authority(raw string) (start, end int, ok bool) {
	colon := strings.IndexByte(raw, ':')
	if colon < 0 || strings.ContainsAny(raw[:colon], "/?#@") {
		return 0, 0, false
	}
	start = colon + 1
	for start < len(raw) && (raw[start] == '/' || raw[start] == '\\') {
		start++
	}
	end = len(raw)
	if i := strings.IndexAny(raw[start:], "/?#"); i >= 0 {
		end = start + i
	}
	return start, end, true
}

// hasUserinfo reports an "@" in the authority, however the URL is spelt.
func hasUserinfo(raw string) bool {
	start, end, ok := authority(raw)
	return ok && strings.Contains(raw[start:end], "@")
}

func stripUserinfo(raw string) string {
	start, end, ok := authority(raw)
	if !ok {
		return raw
	}
	at := strings.LastIndexByte(raw[start:end], '@')
	if at < 0 {
		return raw
	}
	return raw[:start] + "***@" + raw[start+at+1:]
}

// displayHost is the host of raw to name in a refusal, or "" when it
// cannot be shown because it carries a secret itself.
func displayHost(raw string) string {
	start, end, ok := authority(raw)
	if !ok {
		return ""
	}
	host := raw[start:end]
	if at := strings.LastIndexByte(host, '@'); at >= 0 {
		host = host[at+1:]
	}
	if i := strings.IndexByte(host, '\\'); i >= 0 {
		host = host[:i]
	}
	if containsSecret(host) {
		return ""
	}
	return host
}
