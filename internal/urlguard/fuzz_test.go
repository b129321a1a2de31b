package urlguard

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/redact"
)

// fuzzTokens are keys of the shapes redact recognises.
var fuzzTokens = []string{
	"sk-abcdefghijklmnopqrstuvwx",
	"ghp_abcdefghijklmnopqrstuvwxyz0123456789",
	"github_pat_11ABCDEFG0123456789abcdef",
	"xoxb-1234567890-abcdefghij",
	"AIzaSyA1234567890abcdefghijklmnopqrstu",
	"AKIAIOSFODNN7EXAMPLE",
	"hf_abcdefghijklmnopqrstuvwxyz",
	"SG.abcdefghijklmnop.qrstuvwxyz0123456789",
	"sk_live_abcdefghijklmnopqrstuvwxyz",
	"tvly-abcdefghijklmnopqrstuvwxyz",
}

// malformed are escapes a strict decoder stops at.
var malformed = []string{"%", "%z", "%zz", "%G0", "%4", "%%", "%%41", "%u0041", "%-1", "%4g"}

// encodeSome percent-encodes the bytes of s that mask selects: bit 0
// encodes, bit 1 encodes twice (%25XX), bit 2 writes lower-case hex.
func encodeSome(s string, mask []byte) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		var m byte
		if len(mask) > 0 {
			m = mask[i%len(mask)]
		}
		format := "%%%02X"
		if m&4 != 0 {
			format = "%%%02x"
		}
		switch {
		case m&2 != 0:
			b.WriteString("%25" + fmt.Sprintf(format, s[i])[1:])
		case m&1 != 0:
			fmt.Fprintf(&b, format, s[i])
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// plantToken builds a URL carrying token, encoded per mask, in one of
// several places (chosen by place), with junk and malformed escapes in
// the other parts of the URL. The token is always delimited (by "=", "/",
// "&" or the end), as redact's patterns require: a key glued to other
// letters is not recognisable in any encoding.
func plantToken(token string, mask []byte, junk string, place uint8) string {
	enc := encodeSome(token, mask)
	bad := malformed[int(place>>2)%len(malformed)]
	j := bad + junk + bad
	switch place % 4 {
	case 0:
		return "https://example.com/" + j + "?a=" + j + "&key=" + enc + "&b=" + j + "#" + j
	case 1:
		return "https://example.com/" + j + "/" + enc + "/x?a=" + j
	case 2:
		return "https://example.com/p?a=" + j + "#t=" + enc
	default:
		return "https://example.com/" + j + "?" + enc + "&" + j
	}
}

// No URL with a planted key passes CheckURL, however the key is encoded
// and whatever malformed escapes surround it; the refusal and RedactURL
// never show the key.
func FuzzCheckURL(f *testing.F) {
	f.Add(uint8(0), []byte{0}, "", uint8(0))
	f.Add(uint8(1), []byte{1, 0}, "x=%zz", uint8(4))
	f.Add(uint8(2), []byte{3, 5, 0, 7}, "%%%", uint8(9))
	f.Add(uint8(3), []byte{2}, "a+b%2", uint8(14))
	f.Add(uint8(7), []byte{6, 1}, "%25%", uint8(35))
	f.Fuzz(func(t *testing.T, which uint8, mask []byte, junk string, place uint8) {
		if len(junk) > 256 || len(mask) > 64 {
			t.Skip()
		}
		token := fuzzTokens[int(which)%len(fuzzTokens)]
		u := plantToken(token, mask, junk, place)
		_, err := CheckURL(context.Background(), u, Policy{AllowPrivate: true}, nil)
		if !errors.Is(err, ErrSecret) {
			t.Fatalf("CheckURL(%q) = %v, want ErrSecret", u, err)
		}
		if strings.Contains(err.Error(), token) {
			t.Fatalf("refusal shows the key: %v", err)
		}
		shown := RedactURL(u)
		for range maxDecodeRounds {
			if strings.Contains(shown, token) {
				t.Fatalf("RedactURL(%q) = %q shows the key", u, RedactURL(u))
			}
			shown = unescapeOnce(shown)
		}
	})
}

// The fuzz tokens are ones redact recognises; otherwise the property is
// vacuous.
func TestFuzzTokensAreTokens(t *testing.T) {
	for _, tok := range fuzzTokens {
		if !redact.ContainsToken("?k=" + tok + "&") {
			t.Errorf("redact does not recognise %q", tok)
		}
	}
}
