package configmigrate

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/internal/redact"
)

// ProtectSecrets enforces the rule that no secret is copied into a
// client's config file. A literal that looks like a credential (a shape
// internal/redact recognises) or that is the value of an env variable or
// header named like one (*_KEY, *_TOKEN, *_SECRET, PASSWORD,
// Authorization, ...) is replaced by a reference to an environment
// variable, and the server's Notes say which variable to set; each client
// then spells that reference in its own syntax, or asks for it to be
// filled in by hand where it expands none. A credential in the command,
// arguments, working directory or URL has no variable to stand for it:
// that server is left out, and a problem says how to move the secret.
//
// allowLiteral (hermes-migrate --allow-literal-secrets) keeps the values,
// with a note that the file now holds a secret. Notes never carry the
// value itself.
func ProtectSecrets(servers []Server, allowLiteral bool) (kept []Server, problems []string) {
	for _, s := range servers {
		s = cloneServer(s)
		if field := secretInPlace(s); field != "" {
			if !allowLiteral {
				fix := "pass it in env instead (KEY: ${VAR} in config.yaml)"
				if field == "url" {
					fix = "write that part of the url as ${VAR} in config.yaml, for the clients that expand references"
				}
				problems = append(problems, fmt.Sprintf("server %s not registered: its %s holds what looks like a credential, and hermes-migrate never copies one into a client's config; %s, or rerun with --allow-literal-secrets", s.Name, field, fix))
				continue
			}
			s.Notes = append(s.Notes, fmt.Sprintf("%s holds what looks like a credential and was copied as is (--allow-literal-secrets): the client's config file now contains it", field))
		}
		for i, kv := range s.Env {
			if !literalSecret(kv.Key, kv.Value) {
				continue
			}
			if allowLiteral {
				s.Notes = append(s.Notes, fmt.Sprintf("env %s looks like a secret and was copied as is (--allow-literal-secrets): the client's config file now contains it", kv.Key))
				continue
			}
			name := kv.Key
			if !envNameRE.MatchString(name) {
				name = secretVarName(s.Name, kv.Key)
			}
			s.Env[i].Value = Value{Ref: name}
			s.Notes = append(s.Notes, fmt.Sprintf("env %s looks like a secret, so its value was not copied: the entry reads $%s instead; set %s in the environment the client starts from", kv.Key, name, name))
		}
		for i, kv := range s.Headers {
			if !literalSecret(kv.Key, kv.Value) {
				continue
			}
			if allowLiteral {
				s.Notes = append(s.Notes, fmt.Sprintf("header %s looks like a secret and was copied as is (--allow-literal-secrets): the client's config file now contains it", kv.Key))
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
	return s
}

// secretInPlace names the first field outside env and headers whose
// literal text holds a credential.
func secretInPlace(s Server) string {
	if LooksLikeSecret(s.Command) {
		return "command"
	}
	for i, a := range s.Args {
		if LooksLikeSecret(a) {
			return fmt.Sprintf("args[%d]", i)
		}
	}
	if LooksLikeSecret(s.Cwd) {
		return "cwd"
	}
	if LooksLikeSecret(s.URL) {
		return "url"
	}
	return ""
}

// literalSecret reports whether a value would put a secret into a file:
// literal text that looks like a credential, or any literal at all under
// a name that says it is one. A value that is a reference already keeps
// the secret in the environment; the text around it ("Bearer ") is no
// secret unless it looks like one.
func literalSecret(key string, v Value) bool {
	if v.IsRef() {
		return LooksLikeSecret(v.Prefix)
	}
	lit := v.Literal
	if LooksLikeSecret(lit) {
		return true
	}
	// "${A}:${B}" under a secret name is made of references.
	rest := strings.TrimSpace(embeddedRefRE.ReplaceAllString(lit, ""))
	return SecretName(key) && rest != "" && !v.HasEmbeddedRef()
}

// LooksLikeSecret reports whether text holds a credential of a shape the
// redaction patterns recognise (provider tokens, Bearer values, JWTs,
// private keys, passwords in URLs, NAME=value assignments of secrets).
func LooksLikeSecret(text string) bool {
	if text == "" {
		return false
	}
	// The log redaction also masks phone numbers, which are no
	// credential (an argument like +4930123456 must not drop a server).
	if unphoned := phoneRE.ReplaceAllString(text, ""); redact.ContainsToken(text) || redact.String(unphoned) != unphoned {
		return true
	}
	// Shapes the log redaction leaves to context: a bare "Bearer x" and
	// a --api-key=x option.
	if bearerRE.MatchString(text) {
		return true
	}
	for _, m := range optionRE.FindAllStringSubmatch(text, -1) {
		if SecretName(m[1]) && !embeddedRefRE.MatchString(m[2]) {
			return true
		}
	}
	return false
}

var (
	phoneRE  = regexp.MustCompile(`\+[1-9][0-9]{6,14}`)
	bearerRE = regexp.MustCompile(`(?i)\b(?:bearer|basic|token)\s+[A-Za-z0-9._~+/=-]{8,}`)
	// optionRE finds name=value in options (--api-key=x), URL queries
	// (?key=x&...) and assignments.
	optionRE = regexp.MustCompile(`(?:^|[?&;,\s]|-)([A-Za-z][A-Za-z0-9_-]*)=([^&;,\s]+)`)
)

// secretNameRE matches variable and header names that say their value
// is a credential; '-' is read as '_' so headers match too. PWD alone is
// the working directory, DB_PWD a password.
var secretNameRE = regexp.MustCompile(`(?i)(^|_)(API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|SECRET_?KEY|KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|PASSPHRASE|CREDENTIALS?|AUTH|AUTHORIZATION|COOKIE)$|_PWD$|SECRET|PASSWORD`)

// SecretName reports whether an env variable or header name says its
// value is a credential (FETCH_API_KEY, GITHUB_TOKEN, Authorization,
// X-Api-Key).
func SecretName(name string) bool {
	return secretNameRE.MatchString(strings.ReplaceAll(name, "-", "_"))
}

var envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

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
