package kanban_test

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/toolsets/kanban"
)

// The refusals are CPython 3.14's binascii.a2b_base64(strict_mode=True),
// the variant that reads past the padding.
func TestPyB64Decode(t *testing.T) {
	tests := []struct{ in, want, err string }{
		{"Zm9v", "foo", ""},
		{"Zm9vYg==", "foob", ""},
		{"Zm9vYmE=", "fooba", ""},
		{"QR==", "A", ""}, // bits after the last character are ignored
		{"", "", ""},
		{"Zm9", "", "Incorrect padding"},
		{"Zm9vYg=", "", "Incorrect padding"},
		{"Zm9v=", "", "Excess padding not allowed"},
		{"Zm9vYg===", "", "Excess padding not allowed"},
		{"=Zm9v", "", "Leading padding not allowed"},
		{"Zm 9v", "", "Only base64 data is allowed"},
		{"Zm9v\n", "", "Only base64 data is allowed"},
		{"Zm9v-_", "", "Only base64 data is allowed"},
		{"Zm9vYg==Zm9v", "", "Excess data after padding"},
		{"Zm9vYg=a", "", "Discontinuous padding not allowed"},
		{"Z", "", "Invalid base64-encoded string: number of data characters (1) cannot be 1 more than a multiple of 4"},
		{"Zm9vY", "", "Invalid base64-encoded string: number of data characters (5) cannot be 1 more than a multiple of 4"},
		{"Zm9vY=", "", "Invalid base64-encoded string: number of data characters (5) cannot be 1 more than a multiple of 4"},
		{"Zé", "", "string argument should contain only ASCII characters"},
	}
	for _, tt := range tests {
		got, err := kanban.PyB64Decode(tt.in)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("%q: %q, %v; want error %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || string(got) != tt.want {
			t.Errorf("%q = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// FuzzPyB64Decode: without newlines (which Go skips and Python refuses),
// Python's strict decoding accepts exactly what Go's padded standard
// decoding accepts, with the same bytes.
func FuzzPyB64Decode(f *testing.F) {
	for _, s := range []string{"Zm9v", "Zm9vYg==", "QR==", "Zm9v=", "=", "Zm9vYg==Zm9v", "Zm9vYg=a", "Z", "a+/="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsAny(s, "\r\n") {
			return
		}
		got, err := kanban.PyB64Decode(s)
		want, gerr := base64.StdEncoding.DecodeString(s)
		if (err == nil) != (gerr == nil) || err == nil && !bytes.Equal(got, want) {
			t.Fatalf("%q: ours %x, %v; Go %x, %v", s, got, err, want, gerr)
		}
		if err == nil && base64.StdEncoding.EncodeToString(got) != s && !strings.HasSuffix(s, "=") && len(s)%4 == 0 && len(s) > 0 {
			t.Fatalf("%q does not round-trip", s)
		}
	})
}
