package skillsext

import (
	"encoding/base64"
	"errors"
	"fmt"
	"path"
	"strings"
)

// scheme is the URI scheme the extension recommends and the only one this
// server serves skills under.
const scheme = "skill://"

// escapeSegment percent-encodes every byte outside RFC 3986's unreserved
// set, with uppercase hex. Skill directories may have any name, and the
// first segment sits in the URI's authority, where WHATWG URL parsers
// reject many characters a path would allow; escaping all of them keeps
// the URI valid everywhere and already in normal form, so clients that
// normalise URIs before comparing them (the Inspector does) get back what
// we sent.
func escapeSegment(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isUnreserved(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

// buildURI renders decoded path segments as a skill:// URI.
func buildURI(segs ...string) string {
	esc := make([]string, len(segs))
	for i, s := range segs {
		esc[i] = escapeSegment(s)
	}
	return scheme + strings.Join(esc, "/")
}

// join is the lookup key of decoded segments. Segments never contain "/"
// (they are file and directory names), so the key is unambiguous.
func join(segs []string) string { return strings.Join(segs, "/") }

// errTraversal marks a URI with "." or ".." segments. Such a URI names
// nothing this server serves; it is answered like any unknown URI, with a
// message that says why.
var errTraversal = errors.New(`"." and ".." segments are not allowed in skill URIs`)

// parseURI returns the decoded path segments of a skill:// URI. It does not
// resolve dot segments or otherwise normalise the path: a URI is looked up
// as the segments it spells, so no spelling can reach outside the files the
// manifests list.
func parseURI(uri string) ([]string, error) {
	if len(uri) < len(scheme) || !strings.EqualFold(uri[:len(scheme)], scheme) {
		return nil, errors.New("not a skill:// URI")
	}
	rest := uri[len(scheme):]
	if rest == "" || strings.ContainsAny(rest, "?#") {
		return nil, errors.New("a skill URI has a path and no query or fragment")
	}
	raw := strings.Split(rest, "/")
	segs := make([]string, len(raw))
	for i, r := range raw {
		s, err := unescape(r)
		if err != nil {
			return nil, err
		}
		switch {
		case s == "." || s == "..":
			return nil, errTraversal
		case s == "" || strings.ContainsAny(s, "/\\\x00"):
			return nil, errors.New("a skill URI has no empty segments and no escaped separators")
		}
		segs[i] = s
	}
	return segs, nil
}

// unescape decodes %XX escapes (either case) and nothing else; '+' is
// literal in a path.
func unescape(s string) (string, error) {
	if !strings.Contains(s, "%") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
			return "", fmt.Errorf("bad percent-escape in %q", s)
		}
		b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
		i += 2
	}
	return b.String(), nil
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// Cursors are opaque to clients; ours are the method's tag and the URI of
// the last item returned, so a page boundary survives skills being added or
// removed between calls.
const (
	cursorSkills    = "s"
	cursorResources = "r"
	cursorDirectory = "d"
)

func encodeCursor(tag, lastURI string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(tag + lastURI))
}

// decodeCursor returns the URI after which the page starts.
func decodeCursor(tag, cursor string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil || !strings.HasPrefix(string(b), tag+scheme) {
		return "", errors.New("invalid cursor")
	}
	return strings.TrimPrefix(string(b), tag), nil
}

// mimeTypes are the content types of files skills commonly ship, by
// extension. A fixed table rather than the mime package: that one reads
// the system's tables, and a file's type must not depend on the machine.
var mimeTypes = map[string]string{
	".md":       "text/markdown",
	".markdown": "text/markdown",
	".txt":      "text/plain",
	".json":     "application/json",
	".yaml":     "application/yaml",
	".yml":      "application/yaml",
	".toml":     "application/toml",
	".xml":      "application/xml",
	".html":     "text/html",
	".htm":      "text/html",
	".css":      "text/css",
	".csv":      "text/csv",
	".tsv":      "text/tab-separated-values",
	".py":       "text/x-python",
	".sh":       "application/x-sh",
	".bash":     "application/x-sh",
	".js":       "text/javascript",
	".mjs":      "text/javascript",
	".svg":      "image/svg+xml",
	".png":      "image/png",
	".jpg":      "image/jpeg",
	".jpeg":     "image/jpeg",
	".gif":      "image/gif",
	".webp":     "image/webp",
	".pdf":      "application/pdf",
	".zip":      "application/zip",
}

// mimeType is the type of a file by its name; "" when the extension says
// nothing.
func mimeType(name string) string {
	return mimeTypes[strings.ToLower(path.Ext(name))]
}
