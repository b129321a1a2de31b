package clientsync

import (
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
)

// A value hermes-migrate copied into a client's file under
// --allow-literal-secrets is remembered in the ownership state so that a
// later run can tell it from one the user typed in, but the state file
// must never give the secret away: it may be backed up, synced or shared
// where the client's file is not. So what is stored is a salted PBKDF2
// digest, slow enough that guessing a short password from it costs real
// work, and never the value or its bare hash.
const (
	copiedHashScheme = "pbkdf2-sha256"
	copiedHashIter   = 100_000
	copiedSaltLen    = 16
	copiedKeyLen     = 32
	// The state file is hostile input: an iteration count read from it
	// is accepted only within these bounds, so a planted record cannot
	// make a run spin for hours.
	minCopiedHashIter = 10_000
	maxCopiedHashIter = 1_000_000
)

// hashCopied is the record of one copied value:
// pbkdf2-sha256$ITER$SALT$KEY, salt and key in unpadded base64.
func hashCopied(value string) (string, error) {
	salt := make([]byte, copiedSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("salt for the ownership record: %w", err)
	}
	key, err := pbkdf2.Key(sha256.New, value, salt, copiedHashIter, copiedKeyLen)
	if err != nil {
		return "", err
	}
	enc := base64.RawStdEncoding
	return fmt.Sprintf("%s$%d$%s$%s", copiedHashScheme, copiedHashIter, enc.EncodeToString(salt), enc.EncodeToString(key)), nil
}

// copiedMatches reports whether value is the one record was made from. A
// record it cannot read matches nothing: the value then counts as the
// user's, which keeps it.
func copiedMatches(record, value string) bool {
	parts := strings.Split(record, "$")
	if len(parts) != 4 || parts[0] != copiedHashScheme {
		return false
	}
	iter, err := strconv.Atoi(parts[1])
	if err != nil || iter < minCopiedHashIter || iter > maxCopiedHashIter {
		return false
	}
	enc := base64.RawStdEncoding
	salt, err := enc.DecodeString(parts[2])
	if err != nil || len(salt) < 8 || len(salt) > 64 {
		return false
	}
	want, err := enc.DecodeString(parts[3])
	if err != nil || len(want) != copiedKeyLen {
		return false
	}
	got, err := pbkdf2.Key(sha256.New, value, salt, iter, copiedKeyLen)
	return err == nil && subtle.ConstantTimeCompare(got, want) == 1
}
