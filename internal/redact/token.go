package redact

// ContainsToken reports whether s holds a provider token of a known shape
// (the prefix patterns: sk-..., ghp_..., AKIA..., SendGrid keys). URLs are
// checked with this, not with String: a phone number or a form body in a
// URL is not a reason to refuse it, a key is.
func ContainsToken(s string) bool {
	return redactPrefixed(s) != s || pats().sendGridKey.MatchString(s)
}
