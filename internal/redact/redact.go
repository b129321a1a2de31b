// Package redact masks secrets in free text before it reaches a log, an error
// message or a user. It ports the patterns of the Python Hermes
// (agent/redact.py) so that both implementations hide the same things; it is
// applied to any text that may carry provider or codex output, such as a
// child process's stderr or a JSON-RPC error message.
//
// Redaction is best effort: it recognises the token shapes of well-known
// providers and the usual ways secrets are written down (NAME=value, JSON
// fields, Authorization headers, URLs with passwords, private-key blocks). It
// cannot recognise an arbitrary random string with no context.
package redact

import (
	"regexp"
	"strings"
	"sync"
)

// prefixRule describes a provider token: a fixed prefix followed by at least
// min body characters. The body alphabet is [A-Za-z0-9_-] unless upperDigits
// is set, and exact, when non-zero, pins the body length.
type prefixRule struct {
	prefix      string
	min         int
	exact       int
	upperDigits bool
}

// prefixRules are the known-prefix patterns of the original, in its order.
// Longer prefixes that share a start with shorter ones (sk_live_ and sk_) mask
// identically, so the first hit is as good as any.
var prefixRules = []prefixRule{
	{prefix: "sk-", min: 10},
	{prefix: "ghp_", min: 10},
	{prefix: "github_pat_", min: 10},
	{prefix: "gho_", min: 10},
	{prefix: "ghu_", min: 10},
	{prefix: "ghs_", min: 10},
	{prefix: "ghr_", min: 10},
	{prefix: "xoxb-", min: 10},
	{prefix: "xoxa-", min: 10},
	{prefix: "xoxp-", min: 10},
	{prefix: "xoxr-", min: 10},
	{prefix: "xoxs-", min: 10},
	{prefix: "AIza", min: 30},
	{prefix: "pplx-", min: 10},
	{prefix: "fal_", min: 10},
	{prefix: "fc-", min: 10},
	{prefix: "bb_live_", min: 10},
	{prefix: "gAAAA", min: 20},
	{prefix: "AKIA", exact: 16, upperDigits: true},
	{prefix: "sk_live_", min: 10},
	{prefix: "sk_test_", min: 10},
	{prefix: "rk_live_", min: 10},
	{prefix: "hf_", min: 10},
	{prefix: "r8_", min: 10},
	{prefix: "npm_", min: 10},
	{prefix: "pypi-", min: 10},
	{prefix: "dop_v1_", min: 10},
	{prefix: "doo_v1_", min: 10},
	{prefix: "am_", min: 10},
	{prefix: "sk_", min: 10},
	{prefix: "tvly-", min: 10},
	{prefix: "exa_", min: 10},
	{prefix: "gsk_", min: 10},
	{prefix: "syt_", min: 10},
	{prefix: "retaindb_", min: 10},
	{prefix: "hsk-", min: 10},
	{prefix: "mem0_", min: 10},
	{prefix: "brv_", min: 10},
	{prefix: "xai-", min: 30},
	{prefix: "ntn_", min: 10},
}

// patterns are compiled on first use rather than at package init: every
// process links this package, few of them ever redact anything.
type patterns struct {
	tokenRun        *regexp.Regexp
	sendGridKey     *regexp.Regexp
	privateKeyBlock *regexp.Regexp
	envAssign       *regexp.Regexp
	jsonField       *regexp.Regexp
	authBearer      *regexp.Regexp
	telegramToken   *regexp.Regexp
	dbURL           *regexp.Regexp
	jwt             *regexp.Regexp
	formBody        *regexp.Regexp
	phone           *regexp.Regexp
}

var pats = sync.OnceValue(func() *patterns {
	return &patterns{
		// tokenRun finds maximal runs of token characters. Because a run is
		// maximal, a prefix match at its start is bounded by non-token characters
		// on both sides, which is what the original's look-arounds express.
		tokenRun: regexp.MustCompile(`[A-Za-z0-9_-]+`),

		// SendGrid keys have two dot-separated parts that tokenRun would split.
		sendGridKey: regexp.MustCompile(`(^|[^A-Za-z0-9_-])(SG\.[A-Za-z0-9_-]{10,}(?:\.[A-Za-z0-9_-]{10,})?)`),

		privateKeyBlock: regexp.MustCompile(`-----BEGIN[A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?-----END[A-Z0-9 ]*PRIVATE KEY-----`),

		// envAssign matches NAME=value where NAME mentions a credential. Only
		// upper-case names: that is how environment variables and .env files
		// spell them, and it keeps prose like "token=" in code untouched.
		envAssign: regexp.MustCompile(`([A-Z0-9_]{0,50}(?:API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)[A-Z0-9_]{0,50})(\s*=\s*)(['"]?)([^\s'"]+)(['"]?)`),

		jsonField: regexp.MustCompile(`(?i)("(?:api_key|apikey|token|secret|password|access_token|refresh_token|auth_token|bearer|secret_value|raw_secret|secret_input|key_material)"\s*:\s*")([^"\\]*(?:\\.[^"\\]*)*)(")`),

		authBearer: regexp.MustCompile(`(?i)(authorization\s*:\s*bearer\s+)([^\s"',;]+)`),

		telegramToken: regexp.MustCompile(`(^|[^A-Za-z0-9_-])(bot)?([0-9]{8,}):([A-Za-z0-9_-]{30,})`),

		dbURL: regexp.MustCompile(`(?i)((?:postgres(?:ql)?|mysql|mongodb(?:\+srv)?|redis|rediss|amqp|amqps)://[^:/@\s]*:)([^@\s]+)(@)`),

		jwt: regexp.MustCompile(`(^|[^A-Za-z0-9_-])(eyJ[A-Za-z0-9_-]{10,}(?:\.[A-Za-z0-9_=-]{4,}){0,2})`),

		formBody: regexp.MustCompile(`^[A-Za-z0-9_.\-\[\]]+=[^&\s]*(?:&[A-Za-z0-9_.\-\[\]]+=[^&\s]*)+$`),

		phone: regexp.MustCompile(`(^|[^A-Za-z0-9+])(\+[1-9][0-9]{6,14})([^0-9]|$)`),
	}
})

// sensitiveFormKey reports whether a form-body key's value is hidden.
func sensitiveFormKey(k string) bool {
	switch strings.ToLower(k) {
	case "access_token", "refresh_token", "id_token", "token", "api_key", "apikey",
		"client_secret", "password", "auth", "jwt", "session", "secret", "key",
		"code", "signature", "x-amz-signature":
		return true
	}
	return false
}

// String returns s with every recognised secret masked. It is safe for
// concurrent use and returns s unchanged when nothing matches.
func String(s string) string {
	if s == "" {
		return s
	}
	s = pats().privateKeyBlock.ReplaceAllLiteralString(s, "[REDACTED PRIVATE KEY]")
	s = redactPrefixed(s)
	s = pats().sendGridKey.ReplaceAllStringFunc(s, func(m string) string {
		sub := pats().sendGridKey.FindStringSubmatch(m)
		return sub[1] + Mask(sub[2])
	})
	s = pats().envAssign.ReplaceAllStringFunc(s, func(m string) string {
		sub := pats().envAssign.FindStringSubmatch(m)
		if alreadyMasked(sub[4]) {
			return m
		}
		return sub[1] + sub[2] + sub[3] + Mask(sub[4]) + sub[5]
	})
	s = pats().jsonField.ReplaceAllStringFunc(s, func(m string) string {
		sub := pats().jsonField.FindStringSubmatch(m)
		if sub[2] == "" || alreadyMasked(sub[2]) {
			return m
		}
		return sub[1] + Mask(sub[2]) + sub[3]
	})
	s = pats().authBearer.ReplaceAllStringFunc(s, func(m string) string {
		sub := pats().authBearer.FindStringSubmatch(m)
		if alreadyMasked(sub[2]) {
			return m
		}
		return sub[1] + Mask(sub[2])
	})
	s = pats().telegramToken.ReplaceAllString(s, "${1}${2}${3}:***")
	s = pats().dbURL.ReplaceAllString(s, "${1}***${3}")
	s = pats().jwt.ReplaceAllStringFunc(s, func(m string) string {
		sub := pats().jwt.FindStringSubmatch(m)
		return sub[1] + Mask(sub[2])
	})
	s = redactFormBody(s)
	s = pats().phone.ReplaceAllStringFunc(s, func(m string) string {
		sub := pats().phone.FindStringSubmatch(m)
		return sub[1] + maskPhone(sub[2]) + sub[3]
	})
	return s
}

// Mask hides a secret but keeps enough of a long one (first 6 and last 4
// characters) to tell two keys apart when debugging. Short values reveal too
// much that way and become "***".
func Mask(token string) string {
	if len(token) < 18 {
		return "***"
	}
	return token[:6] + "..." + token[len(token)-4:]
}

func redactPrefixed(s string) string {
	idx := pats().tokenRun.FindAllStringIndex(s, -1)
	if idx == nil {
		return s
	}
	var b strings.Builder
	last := 0
	for _, loc := range idx {
		run := s[loc[0]:loc[1]]
		if !isProviderToken(run) {
			continue
		}
		b.WriteString(s[last:loc[0]])
		b.WriteString(Mask(run))
		last = loc[1]
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func isProviderToken(run string) bool {
	for _, r := range prefixRules {
		if !strings.HasPrefix(run, r.prefix) {
			continue
		}
		body := run[len(r.prefix):]
		if r.exact > 0 && len(body) != r.exact {
			continue
		}
		if len(body) < r.min {
			continue
		}
		if r.upperDigits && strings.IndexFunc(body, func(c rune) bool {
			return (c < 'A' || c > 'Z') && (c < '0' || c > '9')
		}) >= 0 {
			continue
		}
		return true
	}
	return false
}

// redactFormBody hides sensitive values when the whole string is an
// application/x-www-form-urlencoded body. Only whole strings qualify, because
// "a=b&c=d" inside prose is far more often a URL query the user needs to see.
func redactFormBody(s string) string {
	trimmed := strings.TrimSpace(s)
	if !pats().formBody.MatchString(trimmed) {
		return s
	}
	pairs := strings.Split(trimmed, "&")
	changed := false
	for i, p := range pairs {
		k, v, _ := strings.Cut(p, "=")
		if v != "" && sensitiveFormKey(k) {
			pairs[i] = k + "=***"
			changed = true
		}
	}
	if !changed {
		return s
	}
	return strings.Replace(s, trimmed, strings.Join(pairs, "&"), 1)
}

func maskPhone(p string) string {
	if len(p) <= 8 {
		return p[:2] + "****"
	}
	return p[:3] + "****" + p[len(p)-4:]
}

// alreadyMasked reports whether v is the output of Mask (or an earlier rule),
// so that overlapping rules do not mask a mask and lose the hint it carries.
func alreadyMasked(v string) bool {
	if strings.Contains(v, "***") {
		return true
	}
	return len(v) == 13 && v[6:9] == "..."
}
