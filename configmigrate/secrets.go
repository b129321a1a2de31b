package configmigrate

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/envref"
	"github.com/hermes-go/hermes/internal/redact"
)

// ProtectSecrets enforces the rule that no secret is copied into a
// client's config file. A literal that looks like a credential (a shape
// internal/redact recognises, a password in a URL's userinfo with or
// without a scheme, the value after a --token style flag, a value under
// a secret's name anywhere inside the text: JSON, query strings, header
// arguments, base64) or that is the value of an env variable or header
// named like one (*_KEY, *_TOKEN, *_SECRET, PASSWORD, Authorization,
// ACCESS_TOKEN_VALUE, ...), even beside a reference ("${USER}:pw"), is
// replaced by a reference to an environment variable, and the server's
// Notes say which variable to set; each client then spells that
// reference in its own syntax, or asks for it to be filled in by hand
// where it expands none. The default of a reference (${VAR:-default})
// is a literal too: one that is a secret, or belongs to a secret's name,
// is dropped and the reference kept. A credential in the command,
// arguments, working directory or URL has no variable to stand for it:
// that server is left out, and a problem says how to move the secret.
//
// allowLiteral (hermes-migrate --allow-literal-secrets) keeps the values,
// with one problem per value copied, which the report prints as a
// warning. Neither notes nor problems ever carry the value itself.
func ProtectSecrets(servers []Server, allowLiteral bool) (kept []Server, problems []string) {
	for _, s := range servers {
		s = cloneServer(s)
		copied := func(what string) {
			problems = append(problems, fmt.Sprintf("server %s: %s looks like a credential and was copied as is (--allow-literal-secrets): the client's config file now contains it", s.Name, what))
		}
		dropDefaults := func(field string, vars []string) {
			for _, v := range vars {
				if allowLiteral {
					copied(fmt.Sprintf("the default in %s's ${%s:-...}", field, v))
					continue
				}
				s.Notes = append(s.Notes, fmt.Sprintf("%s: the default in ${%s:-...} looks like a secret or belongs to one, so it was not copied: the entry reads ${%s} with no default; set %s in the environment the client starts from", field, v, v, v))
			}
		}
		// Defaults go first, so that what remains of a field is judged
		// without them.
		var text string
		var vars []string
		if text, vars = stripSecretDefaults(s.Command, false); !allowLiteral {
			s.Command = text
		}
		dropDefaults("command", vars)
		prev := lastField(s.Command)
		for i, a := range s.Args {
			// After a bare --key a default is a secret when it looks
			// random, as the value itself would be.
			inSecret := flagSecrecy(prev) == secrecyStrict || flagTakesSecret(prev, refDefaultRE.ReplaceAllString(a, "$2"))
			if text, vars = stripSecretDefaults(a, inSecret); !allowLiteral {
				s.Args[i] = text
			}
			dropDefaults(fmt.Sprintf("args[%d]", i), vars)
			prev = a
		}
		if text, vars = stripSecretDefaults(s.Cwd, false); !allowLiteral {
			s.Cwd = text
		}
		dropDefaults("cwd", vars)
		if text, vars = stripSecretDefaults(s.URL, false); !allowLiteral {
			s.URL = text
		}
		dropDefaults("url", vars)
		if fields := secretPlaces(s); len(fields) > 0 {
			if !allowLiteral {
				fix := "pass it in env instead (KEY: ${VAR} in config.yaml)"
				if fields[0] == "url" {
					fix = "write that part of the url as ${VAR} in config.yaml, for the clients that expand references"
				}
				problems = append(problems, fmt.Sprintf("server %s not registered: its %s holds what looks like a credential, and hermes-migrate never copies one into a client's config; %s, or rerun with --allow-literal-secrets", s.Name, fields[0], fix))
				continue
			}
			for _, f := range fields {
				copied(f)
			}
			s.CopiedSecrets = append(s.CopiedSecrets, fields...)
		}
		for i, kv := range s.Env {
			field := "env " + kv.Key
			if !literalSecret(kv.Key, kv.Value) {
				v, vars := stripValueDefaults(kv.Key, kv.Value)
				if !allowLiteral {
					s.Env[i].Value = v
				}
				dropDefaults(field, vars)
				continue
			}
			if allowLiteral {
				copied(field)
				s.CopiedSecrets = append(s.CopiedSecrets, field)
				continue
			}
			name := kv.Key
			if !envref.IsName(name) {
				name = secretVarName(s.Name, kv.Key)
			}
			s.Env[i].Value = Value{Ref: name}
			s.Notes = append(s.Notes, fmt.Sprintf("env %s looks like a secret, so its value was not copied: the entry reads $%s instead; set %s in the environment the client starts from", kv.Key, name, name))
		}
		for i, kv := range s.Headers {
			field := "header " + kv.Key
			if !literalSecret(kv.Key, kv.Value) {
				v, vars := stripValueDefaults(kv.Key, kv.Value)
				if !allowLiteral {
					s.Headers[i].Value = v
				}
				dropDefaults(field, vars)
				continue
			}
			if allowLiteral {
				copied(field)
				s.CopiedSecrets = append(s.CopiedSecrets, field)
				continue
			}
			name := secretVarName(s.Name, kv.Key)
			v := Value{Ref: name}
			// "Bearer sk-..." keeps its scheme, so codex can still use
			// bearer_token_env_var.
			if scheme, _, ok := strings.Cut(kv.Value.Literal, " "); ok && strings.EqualFold(scheme, "Bearer") {
				v.Prefix = scheme + " "
			}
			s.Headers[i].Value = v
			what := name
			if v.Prefix != "" {
				what = fmt.Sprintf("%s (the value after %q)", name, v.Prefix)
			}
			s.Notes = append(s.Notes, fmt.Sprintf("header %s looks like a secret, so its value was not copied: the entry reads $%s instead; set %s in the environment the client starts from", kv.Key, name, what))
		}
		kept = append(kept, s)
	}
	return kept, problems
}

func cloneServer(s Server) Server {
	s.Args = slices.Clone(s.Args)
	s.Env = slices.Clone(s.Env)
	s.Headers = slices.Clone(s.Headers)
	s.Notes = slices.Clone(s.Notes)
	s.CopiedSecrets = slices.Clone(s.CopiedSecrets)
	return s
}

// secretPlaces names the fields outside env and headers whose literal
// text holds a credential: by its shape, or as the value after a flag
// that names one (--api-key VALUE), whether the flag ends the command or
// is an argument.
func secretPlaces(s Server) []string {
	var fields []string
	if LooksLikeSecret(s.Command) {
		fields = append(fields, "command")
	}
	prev := lastField(s.Command)
	for i, a := range s.Args {
		if LooksLikeSecret(a) || flagTakesSecret(prev, a) {
			fields = append(fields, fmt.Sprintf("args[%d]", i))
		}
		prev = a
	}
	if LooksLikeSecret(s.Cwd) {
		fields = append(fields, "cwd")
	}
	if LooksLikeSecret(s.URL) {
		fields = append(fields, "url")
	}
	return fields
}

func lastField(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1]
}

// literalSecret reports whether a value would put a secret into a file:
// literal text that looks like a credential, or any literal at all under
// a name that says it is one. A value that is a reference already keeps
// the secret in the environment; the text around it is no secret when
// it is only an auth scheme ("Bearer ") or separators ("${USER}:${PW}"),
// and is one under a secret's name otherwise ("${USER}:hunter2").
func literalSecret(key string, v Value) bool {
	if v.IsRef() {
		return LooksLikeSecret(v.Prefix) || SecretName(key) && literalAroundRefs(v.Prefix)
	}
	lit := v.Literal
	if LooksLikeSecret(lit) {
		return true
	}
	return SecretName(key) && literalAroundRefs(lit) && !pathLike(lit)
}

// literalAroundRefs reports whether text, its references taken out,
// still has literal content: for a whole literal or a reference's
// prefix, anything but a known auth scheme; between references, letters
// or digits ("${USER}:${PW}" is separators only).
func literalAroundRefs(text string) bool {
	if !envref.HasBraced(text) {
		rest := strings.TrimSpace(text)
		return rest != "" && !authSchemes[strings.ToLower(rest)]
	}
	rest := envref.ReplaceBraced(text, " ")
	if scheme, after, ok := strings.Cut(strings.TrimLeft(rest, " \t"), " "); ok && authSchemes[strings.ToLower(scheme)] {
		rest = after
	}
	return strings.ContainsFunc(rest, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) })
}

// authSchemes are the words that start an Authorization value before
// the credential. Only known ones: "AAAAAAAA ${T}" is a literal, which
// may be half of a secret.
var authSchemes = wordSetLower("bearer basic token digest bot apikey api-key key ssws geniekey oauth jwt negotiate ntlm hmac splunk deepl-auth-key klaviyo-api-key")

// LooksLikeSecret reports whether text holds a credential of a shape the
// redaction patterns recognise (provider tokens, Bearer values, JWTs,
// private keys, passwords in URLs, NAME=value assignments of secrets), or
// a value under a name that says it is one, however the name and value
// are written down: --api-key=x, ?access_token=x, "apiKey": "x" in JSON
// (escaped or not, nested or not), X-Api-Key: x, user:password@host.
func LooksLikeSecret(text string) bool {
	if looksLikeSecret(text) {
		return true
	}
	// A name or value written percent-encoded (?api%5Fkey=..., a
	// password with %40 in it) is the same secret. A few rounds undo
	// double encoding; each round is looked at once, not once per
	// character unescaped.
	u := text
	for range 3 {
		next, err := url.PathUnescape(u)
		if err != nil || next == u {
			return false
		}
		if u = next; looksLikeSecret(u) {
			return true
		}
	}
	return false
}

// looksLikeSecret is LooksLikeSecret on text as it stands.
func looksLikeSecret(text string) bool {
	if text == "" {
		return false
	}
	// The log redaction also masks phone numbers, which are no
	// credential (an argument like +4930123456 must not drop a server),
	// and the reference in "Authorization: Bearer ${TOKEN}", which keeps
	// the secret out of the file: both go before it looks.
	refless := envref.ReplaceBraced(text, "")
	if unphoned := phoneRE.ReplaceAllString(refless, ""); redact.ContainsToken(text) || redact.String(unphoned) != unphoned {
		return true
	}
	// Shapes the log redaction leaves to context: a bare "Bearer x".
	if bearerRE.MatchString(refless) {
		return true
	}
	if namedSecret(text) || userinfoSecret(text) || jsonSecret(text) || encodedSecret(text) {
		return true
	}
	// A long random blob standing alone is key material wherever it
	// is (a positional argument, a value under any name); a path is not,
	// however random its directory names (a temporary directory's are).
	if keyBlob(text, 64) && !pathLike(text) {
		return true
	}
	// A header passed as one argument (mcp-remote --header
	// "Auth: value") is judged as the headers of a remote server are,
	// even under a bare "Auth".
	if m := headerArgRE.FindStringSubmatch(text); m != nil && SecretName(m[1]) && valueOutsideRefs(ParseValue(strings.TrimSpace(m[2]))) {
		return true
	}
	// "--password hunter2" inside one string (a command line, an env
	// value holding options).
	f := strings.Fields(text)
	for i := 1; i < len(f); i++ {
		if flagTakesSecret(f[i-1], f[i]) {
			return true
		}
	}
	return false
}

// headerArgRE is "Name: value", a header written as one string.
var headerArgRE = regexp.MustCompile(`^\s*([A-Za-z][A-Za-z0-9_-]*)\s*:\s*(\S.*)$`)

// base64RE is a run long enough to be base64 of something worth hiding.
var base64RE = regexp.MustCompile(`[A-Za-z0-9+/_-]{24,}={0,2}`)

// encodedSecret reports whether text holds base64 (a service account's
// JSON, "user:password" for Basic auth, a settings blob) whose decoded
// text holds a secret. Decoded text is shorter than the run it came
// from, so the recursion ends.
func encodedSecret(text string) bool {
	for _, run := range base64RE.FindAllString(text, 32) {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
			b, err := enc.DecodeString(run)
			if err != nil || !utf8.Valid(b) || strings.ContainsFunc(string(b), func(r rune) bool { return r < ' ' && r != '\n' && r != '\t' && r != '\r' }) {
				continue
			}
			if LooksLikeSecret(string(b)) {
				return true
			}
			break
		}
	}
	return false
}

// pairRE is one name and its value, as options (--api-key=x), URL
// queries and fragments (?token=x, #access_token=x), assignments,
// headers (X-Api-Key: x) and the members of JSON, YAML, TOML or Python
// maps write them, quoted or not, with the quotes escaped or not
// ({\"apiKey\":\"x\"} inside a JSON string, or twice escaped). An
// unquoted value is one word, or two when the first is an auth scheme
// (Authorization: Bearer ${T} is a reference, not the literal "Bearer").
var pairRE = regexp.MustCompile(`(?:^|[^A-Za-z0-9_.])\\*["']?([A-Za-z_][A-Za-z0-9_.-]*)\\*["']?[ \t]*[:=][ \t]*(?:\\*"([^"\\]*)|\\*'([^'\\]*)|((?i:bearer|basic|token|digest|bot)[ \t]+` + unquotedValue + `|` + unquotedValue + `))`)

// unquotedValue ends at a space, quote, separator, '=' or ':' (but for
// the ':' of "https://" or "C:\\"), so a long run of pairs (k:k:k:...)
// is read in one pass, each value once.
const unquotedValue = `(?:\$\{[^}]*\}|[^\s"',;&}\]=:]|:[/\\])+`

// namedSecret reports whether text names a secret and writes its value:
// every name=value or name: value pair in it is judged by its name, the
// way flagTakesSecret judges --name value.
func namedSecret(text string) bool {
	for pos := 0; pos < len(text); {
		m := pairRE.FindStringSubmatchIndex(text[pos:])
		if m == nil {
			return false
		}
		name := text[pos+m[2] : pos+m[3]]
		var value string
		for g := 4; g <= 8; g += 2 {
			if m[g] >= 0 {
				value = text[pos+m[g] : pos+m[g+1]]
			}
		}
		if pos+m[2] > 0 && text[pos+m[2]-1] == '-' {
			if flagTakesSecret("--"+name, value) {
				return true
			}
		} else if pairSecret(name, value) {
			return true
		}
		// The next pair may start inside this one's value
		// (--header=X-Api-Key: x).
		pos += m[3]
	}
	return false
}

// pairSecret reports whether value, written under name outside env and
// headers (in an argument, a URL, a JSON document), is a secret: the name
// says so and the value is literal text that is not a path, a flag or a
// placeholder word. A bare "key" or "auth" means too many other things
// (key=sort, auth=oauth), so there the value must also look random.
func pairSecret(name, value string) bool {
	if digitsOnlyRE.MatchString(value) && len(value) < 8 && !numericSecretName(name) {
		// "token_budget":20000 is a count; a short number is a
		// password or PIN at most.
		return false
	}
	switch nameSecrecy(name) {
	case secrecyNone:
		return false
	case secrecyAmbiguous:
		return plainSecretValue(value) && randomLooking(value)
	}
	return plainSecretValue(value)
}

// plainSecretValue reports whether value, under a secret's name, is the
// secret written out.
func plainSecretValue(value string) bool {
	value = strings.TrimSpace(value)
	if value == "" || flagLikeRE.MatchString(value) || pathLike(value) || placeholderWords[strings.ToLower(value)] {
		return false
	}
	return valueOutsideRefs(ParseValue(value))
}

// valueOutsideRefs reports whether v, under a secret's name, writes
// some of the secret out: any literal text but an auth scheme before a
// reference. It looks no further into the text (the name decides), so
// judging a pair never re-reads its value from the start.
func valueOutsideRefs(v Value) bool {
	if v.IsRef() {
		return literalAroundRefs(v.Prefix)
	}
	return literalAroundRefs(v.Literal)
}

// placeholderWords are values a secret's option takes that are no
// secret: a switch, or where to find the secret.
var placeholderWords = wordSetLower("true false yes no on off none null nil auto env stdin prompt keychain keyring oauth oidc required optional disabled enabled")

func wordSetLower(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// pathLike reports whether value is a file's path (a key file, a
// credentials file), which names where a secret is and is none itself:
// made of path characters, and relative to ".", ".." or "~", or
// absolute with a directory in it ("/etc/k.pem"; a bare "/Xy7.z" could
// be a password).
func pathLike(value string) bool {
	if strings.ContainsFunc(value, func(r rune) bool { return !pathRune(r) }) {
		return false
	}
	if len(value) > 2 && value[1] == ':' && (value[2] == '\\' || value[2] == '/') && unicode.IsLetter(rune(value[0])) {
		return true
	}
	for _, p := range []string{"./", "../", "~/"} {
		if strings.HasPrefix(value, p) {
			return true
		}
	}
	rest, ok := strings.CutPrefix(value, "/")
	return ok && strings.Contains(strings.TrimSuffix(rest, "/"), "/")
}

func pathRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("._~/\\-:@+", r)
}

// randomLooking reports whether value reads like a generated key rather
// than a word: long, of token characters only, with letters and digits
// mixed.
func randomLooking(value string) bool {
	if len(value) < 16 {
		return false
	}
	var letters, digits int
	for _, r := range value {
		switch {
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
			letters++
		case r >= '0' && r <= '9':
			digits++
		case strings.ContainsRune("+/=_.~-", r):
		default:
			return false
		}
	}
	return letters > 0 && digits > 0
}

const (
	secrecyNone = iota
	// secrecyAmbiguous is a name that holds a secret as often as not:
	// a bare key or auth.
	secrecyAmbiguous
	secrecyStrict
)

// nonSecretKeyQualifiers make a *_KEY name the key of a record or a
// public key, not a credential (SORT_KEY, PUBLIC_KEY).
var nonSecretKeyQualifiers = wordSet("SORT PUBLIC PARTITION PRIMARY FOREIGN CACHE HASH ROUTING GROUP LOOKUP IDEMPOTENCY DEDUP MAP INDEX HOT SHORTCUT")

// nameSecrecy is how surely a name in a pair says its value is a secret.
func nameSecrecy(name string) int {
	w := nameWords(name)
	if len(w) == 0 {
		return secrecyNone
	}
	last := w[len(w)-1]
	// Names that hold a secret in a pair but are no env variable's:
	// Pwd= in a connection string, a presigned URL's sig= or
	// X-Amz-Signature=.
	if len(w) == 1 && last == "PWD" || last == "SIG" || last == "SIGNATURE" {
		return secrecyStrict
	}
	if !SecretName(name) {
		return secrecyNone
	}
	if len(w) == 1 && (last == "KEY" || last == "AUTH") {
		return secrecyAmbiguous
	}
	if last == "KEY" && nonSecretKeyQualifiers[w[len(w)-2]] {
		return secrecyNone
	}
	return secrecyStrict
}

// flagTakesSecret reports whether value, following flag (as the next
// argument or after '='), is a secret written out. Both spellings of an
// option are judged alike, so --key=x and --key x agree.
func flagTakesSecret(flag, value string) bool {
	// curl -u user:password, --basic-auth user:password.
	if user, pw, ok := strings.Cut(value, ":"); ok && loginFlags[flag] && user != "" && !strings.ContainsAny(user, " /@") && plainSecretValue(pw) {
		return true
	}
	// Key material by its shape: a long random blob after a flag that
	// names a key (--key-pem=<base64>, --ssh-key-b64 <blob>), whatever
	// word ends the flag.
	if keyFlag(flag) && keyBlob(value, 32) {
		return true
	}
	switch flagSecrecy(flag) {
	case secrecyStrict:
		return flagValueSecret(value)
	case secrecyAmbiguous:
		return flagValueSecret(value) && randomLooking(value)
	}
	return false
}

// keyWords in a flag's name say it carries key material.
var keyWords = wordSet("KEY KEYS TOKEN SECRET PASSWORD PEM PRIVATE CREDENTIAL CREDENTIALS CREDS AUTH SSH PGP GPG SIGNING CERT")

// keyFlag reports whether flag names key material anywhere in its name,
// unless its last word says the value is about the key (--key-file).
func keyFlag(flag string) bool {
	m := flagRE.FindStringSubmatch(flag)
	if m == nil {
		return false
	}
	w := nameWords(m[1])
	if len(w) == 0 || flagMetaWords[w[len(w)-1]] {
		return false
	}
	for _, x := range w {
		if keyWords[x] {
			return true
		}
	}
	return false
}

// keyBlob reports whether value is a run of at least min base64
// characters as random as key material is: upper and lower case letters
// and digits, and about four bits of entropy a character or more. Hex
// digests, words and paths fall short.
func keyBlob(value string, min int) bool {
	v := strings.TrimRight(value, "=")
	if len(v) < min {
		return false
	}
	var upper, lower, digit bool
	counts := map[rune]int{}
	for _, r := range v {
		switch {
		case r >= 'A' && r <= 'Z':
			upper = true
		case r >= 'a' && r <= 'z':
			lower = true
		case r >= '0' && r <= '9':
			digit = true
		case r == '+' || r == '/' || r == '-' || r == '_':
		default:
			return false
		}
		counts[r]++
	}
	if !upper || !lower || !digit {
		return false
	}
	var bits float64
	n := float64(len(v))
	for _, c := range counts {
		p := float64(c) / n
		bits -= p * math.Log2(p)
	}
	return bits >= 4
}

// loginFlags take "user:password".
var loginFlags = map[string]bool{"-u": true, "--user": true, "--basic-auth": true, "--auth": true, "--creds": true, "--credentials": true, "--userpass": true, "--login": true}

// flagSecrecy is how surely a flag says its value is a secret: by
// secretFlag's words, or by the name rule of pairs (--authorization,
// --openai-key, -Dpassword, a bare --key only with a random-looking
// value), unless its last word says the value is about the secret
// (--password-stdin, --token-file, --secret-name).
func flagSecrecy(flag string) int {
	if secretFlag(flag) {
		return secrecyStrict
	}
	m := flagRE.FindStringSubmatch(flag)
	if m == nil {
		return secrecyNone
	}
	switch w := nameWords(m[1]); {
	case len(w) == 0, w[0] == "NO", w[0] == "ASK", w[0] == "PROMPT":
		return secrecyNone
	case flagMetaWords[w[len(w)-1]]:
		return secrecyNone
	}
	return nameSecrecy(m[1])
}

// flagMetaWords end a flag whose value is about a secret, not the secret.
var flagMetaWords = wordSet("STDIN FD FILE FILES PATH DIR ENV VAR NAME PROMPT COMMAND CMD HELPER URL URI TYPE ID MODE HASH LENGTH STORE SOURCE")

// userinfoSecret reports whether text holds a password in a URL's
// userinfo, with a scheme (https://admin:pw@host, redis://:pw@host) or
// without one (admin:pw@db.example.com:5432/app), unless the password is
// a reference.
func userinfoSecret(text string) bool {
	for _, m := range userinfoRE.FindAllStringSubmatch(text, -1) {
		if !isWholeRef(m[1]) {
			return true
		}
	}
	for _, m := range barUserinfoRE.FindAllStringSubmatch(text, -1) {
		if !isWholeRef(m[2]) && !notUserinfo[strings.ToLower(m[1])] {
			return true
		}
	}
	return false
}

// userinfoRE finds the password of scheme://user:password@host; the
// password stops at '/', so "https://host:443/@alice" is no userinfo.
var userinfoRE = regexp.MustCompile(`(?i)[a-z][a-z0-9+.-]*://[^/?#@ \t\r\n:]*:([^/?#@ \t\r\n]+)@`)

// barUserinfoRE is user:password@host with no scheme, where host is a
// domain name, localhost or an IP address: image:tag@sha256:... names no
// host, and git@github.com:org/repo has no password.
var barUserinfoRE = regexp.MustCompile(`(?:^|[\s=,;"'(\[{<])([^\s/?#@:"'=,;]*):([^\s/?#@:"']+)@(?:(?:[A-Za-z0-9-]+\.)+[A-Za-z][A-Za-z0-9-]*|localhost|[0-9]{1,3}(?:\.[0-9]{1,3}){3}|\[[0-9A-Fa-f:.]+\])(?:$|[\s:/?#"'\])},;])`)

// notUserinfo are URI schemes written without "//", whose
// scheme:user@host is an address, not a login.
var notUserinfo = wordSetLower("mailto sip sips xmpp tel im pres acct urn news")

// jsonSecret reports whether text holds a JSON document (an argument
// like --config={...}, an env value holding a settings object) with a
// secret in it at any depth: a member named like one, or a string that
// looks like one by itself.
func jsonSecret(text string) bool {
	tries := 0
	for i := 0; i < len(text) && tries < 8; i++ {
		// The brace of a reference (${VAR}) opens no document.
		if text[i] != '{' && text[i] != '[' || i > 0 && text[i-1] == '$' {
			continue
		}
		tries++
		var doc any
		d := json.NewDecoder(strings.NewReader(text[i:]))
		d.UseNumber()
		if d.Decode(&doc) == nil && jsonHasSecret("", doc) {
			return true
		}
	}
	return false
}

func jsonHasSecret(name string, v any) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if jsonHasSecret(k, e) {
				return true
			}
		}
	case []any:
		prev := ""
		for _, e := range x {
			if jsonHasSecret(name, e) {
				return true
			}
			// ["--api-key", "x"]: an argument list.
			s, _ := e.(string)
			if flagTakesSecret(prev, s) {
				return true
			}
			prev = s
		}
	case string:
		return name != "" && pairSecret(name, x) || LooksLikeSecret(x)
	case json.Number:
		return name != "" && pairSecret(name, x.String())
	}
	return false
}

var digitsOnlyRE = regexp.MustCompile(`^[0-9]+$`)

// numericSecretName reports whether a name's value may be a secret made
// of digits only: a password, passphrase, passcode or PIN.
func numericSecretName(name string) bool {
	upper := strings.ToUpper(name)
	if strings.Contains(upper, "PASSWORD") || strings.Contains(upper, "SECRET") {
		return true
	}
	return slices.ContainsFunc(nameWords(name), func(w string) bool {
		return w == "PASS" || w == "PW" || w == "PWD" || w == "PASSWD" || w == "PASSPHRASE" || w == "PASSCODE" || w == "PIN"
	})
}

// flagRE is a flag that takes its value as the next argument. Its name
// has two letters at least: -p is the port (or profile, or path) in more
// CLIs than it is a password, so a one-letter flag is never read as one;
// a password after -p is caught only by its shape.
var flagRE = regexp.MustCompile(`^--?([A-Za-z][A-Za-z0-9_.-]+)$`)

// secretFlag reports whether arg is a flag whose value is a credential:
// its last word says so (--api-key, --token, --client-secret, --password,
// --passwd, --pass, --pw, --apiKey, -token). --token-file, --password-stdin,
// --no-password and --ask-pass take no secret.
func secretFlag(arg string) bool {
	m := flagRE.FindStringSubmatch(arg)
	if m == nil {
		return false
	}
	w := nameWords(m[1])
	if len(w) == 0 {
		return false
	}
	switch w[0] {
	case "NO", "ASK", "PROMPT":
		return false
	}
	last := w[len(w)-1]
	switch last {
	case "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASS", "PW", "PASSPHRASE", "APIKEY", "ACCESSKEY", "SECRETKEY":
		return true
	case "KEY":
		return len(w) > 1 && keyQualifiers[w[len(w)-2]]
	}
	// One word run together: --clientsecret, --dbpassword.
	return strings.HasSuffix(last, "SECRET") || strings.HasSuffix(last, "PASSWORD")
}

// flagValueSecret reports whether arg, following a secret flag, is that
// secret written out: anything but another flag, a file path
// (--private-key /etc/k.pem), a placeholder word (--token env) or text
// made only of references (the same rule as an env value under a secret
// name).
func flagValueSecret(arg string) bool {
	if arg == "" || flagLikeRE.MatchString(arg) || strings.HasPrefix(arg, "/") || strings.HasPrefix(arg, "./") || strings.HasPrefix(arg, "../") || strings.HasPrefix(arg, "~/") {
		return false
	}
	return plainSecretValue(arg)
}

// flagLikeRE is an argument that is itself a flag, which makes the one
// before it a switch; a secret rarely begins with "--" or is one letter.
var flagLikeRE = regexp.MustCompile(`^(--[A-Za-z][A-Za-z0-9_.-]*(=.*)?|-[A-Za-z]|-)$`)

// refDefaultRE is ${VAR:-default}.
var refDefaultRE = regexp.MustCompile(`\$\{(` + envref.Name + `):-([^}]*)\}`)

// stripSecretDefaults removes from text the defaults of the references
// that would put a secret in a file: a default that looks like one, one
// of a variable named like one, and every default when the text with its
// defaults filled in looks like a credential (https://u:${PW:-x}@h,
// --token=${T:-x}) or inSecret says the text is a secret's value. It
// returns the text and the variables whose default went.
func stripSecretDefaults(text string, inSecret bool) (string, []string) {
	if !refDefaultRE.MatchString(text) {
		return text, nil
	}
	all := inSecret || LooksLikeSecret(refDefaultRE.ReplaceAllString(text, "$2"))
	var vars []string
	out := refDefaultRE.ReplaceAllStringFunc(text, func(ref string) string {
		m := refDefaultRE.FindStringSubmatch(ref)
		if m[2] == "" || !all && !SecretName(m[1]) && !LooksLikeSecret(m[2]) {
			return ref
		}
		vars = append(vars, m[1])
		return "${" + m[1] + "}"
	})
	return out, vars
}

// stripValueDefaults is stripSecretDefaults for an env or header value
// under key: a reference's default is a secret when the key or the
// variable is named like one or the default (with its prefix) looks like
// one.
func stripValueDefaults(key string, v Value) (Value, []string) {
	if !v.IsRef() {
		lit, vars := stripSecretDefaults(v.Literal, SecretName(key))
		v.Literal = lit
		return v, vars
	}
	if v.Default == "" || !SecretName(key) && !SecretName(v.Ref) && !LooksLikeSecret(v.Default) && !LooksLikeSecret(v.Prefix+v.Default) {
		return v, nil
	}
	v.Default, v.HasDefault = "", false
	return v, []string{v.Ref}
}

var (
	phoneRE  = regexp.MustCompile(`\+[1-9][0-9]{6,14}`)
	bearerRE = regexp.MustCompile(`(?i)\b(?:bearer|basic|token)\s+[A-Za-z0-9._~+/=-]{8,}`)
)

// SecretName reports whether an env variable, header, option or flag
// name says its value is a credential (FETCH_API_KEY, GITHUB_TOKEN,
// Authorization, X-Api-Key, accessToken, ACCESS_TOKEN_VALUE,
// DB_PASS_PHRASE, PW). Names are read as words split at '_', '-', '.' and
// camelCase humps, so TOKEN matches as a word and never inside
// TOKENIZER_PATH, KEY never inside MONKEY or KEYBOARD_LAYOUT, PASS never
// inside PASSTHROUGH or BYPASS. PWD alone is the working directory,
// DB_PWD a password.
func SecretName(name string) bool {
	upper := strings.ToUpper(name)
	if strings.Contains(upper, "SECRET") || strings.Contains(upper, "PASSWORD") {
		return true
	}
	w := nameWords(name)
	if len(w) == 0 {
		return false
	}
	last := w[len(w)-1]
	if credentialLastWords[last] || last == "PWD" && len(w) > 1 {
		return true
	}
	// A credential word before a word that names something about the
	// credential (GITHUB_TOKEN_FILE, API_KEY_PATH) is not the secret.
	if credentialMetaWords[last] {
		return false
	}
	for i, x := range w {
		if credentialWords[x] || x == "KEY" && i > 0 && keyQualifiers[w[i-1]] {
			return true
		}
	}
	return false
}

var (
	// credentialLastWords end a secret's name (OPENAI_KEY, X_AUTH).
	credentialLastWords = wordSet("KEY APIKEY ACCESSKEY PRIVATEKEY SECRETKEY TOKEN PASSWD PASS PW PASSPHRASE CREDENTIAL CREDENTIALS AUTH AUTHORIZATION AUTHENTICATION COOKIE")
	// credentialWords make a secret's name wherever they stand
	// (ACCESS_TOKEN_VALUE, DB_PASS_PHRASE); KEY, AUTH and COOKIE do not
	// (KEY_ID, AUTH_MODE, COOKIE_DOMAIN), KEY only after a qualifier.
	credentialWords = wordSet("TOKEN PASSWD PASS PW PASSPHRASE APIKEY ACCESSKEY PRIVATEKEY SECRETKEY CREDENTIAL CREDENTIALS")
	keyQualifiers   = wordSet("API ACCESS PRIVATE SECRET SIGNING ENCRYPTION CLIENT MASTER AUTH SESSION LICENSE")
	// credentialMetaWords name something about a credential that is no
	// secret itself: where it is, how long, what kind.
	credentialMetaWords = wordSet("FILE FILES PATH DIR URL URI ENDPOINT HOST PORT COUNT LIMIT LENGTH SIZE TYPE ENABLED VERSION HEADER NAME ENV VAR")
)

func wordSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// nameWords splits a name into upper-case words at every character that
// is no letter or digit and at camelCase humps (accessToken, GitHubToken).
func nameWords(name string) []string {
	var b strings.Builder
	rs := []rune(name)
	for i, r := range rs {
		if i > 0 && unicode.IsUpper(r) && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1])) {
			b.WriteByte('_')
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToUpper(r))
		} else {
			b.WriteByte('_')
		}
	}
	return strings.FieldsFunc(b.String(), func(r rune) bool { return r == '_' })
}

// secretVarName is the variable a header's (or oddly named env entry's)
// secret is read from: the server and key in upper snake case
// (linear + Authorization = LINEAR_AUTHORIZATION).
func secretVarName(server, key string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(server + "_" + key) {
		if r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	name := b.String()
	if name[0] >= '0' && name[0] <= '9' {
		name = "_" + name
	}
	return name
}

// isWholeRef reports whether s is nothing but one variable reference.
func isWholeRef(s string) bool {
	_, ok := envref.Whole(s)
	return ok
}
