package kanban

import (
	"fmt"
	"strings"
)

// pyB64Decode decodes standard base64 with the rules, and the refusal
// texts, of Python's base64.b64decode(s, validate=True) in the Python
// Hermes runs on (3.14: binascii.a2b_base64 in strict mode reading past
// the padding, as since 3.13.13 and 3.14.4): only the standard alphabet,
// no whitespace or newlines, padding only where the last group needs it,
// nothing after it. Go's decoder differs: it skips newlines.
func pyB64Decode(s string) ([]byte, error) {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return nil, fmt.Errorf("string argument should contain only ASCII characters")
		}
	}
	out := make([]byte, 0, len(s)/4*3+2)
	var acc uint32
	quad, pads := 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '=' {
			pads++
			if quad >= 2 && quad+pads <= 4 {
				continue
			}
			if quad == 1 {
				break
			}
			if quad == 0 && i == 0 {
				return nil, fmt.Errorf("Leading padding not allowed")
			}
			return nil, fmt.Errorf("Excess padding not allowed")
		}
		v := strings.IndexByte(b64Alphabet, c)
		if v < 0 {
			return nil, fmt.Errorf("Only base64 data is allowed")
		}
		if pads != 0 {
			if quad+pads == 4 {
				return nil, fmt.Errorf("Excess data after padding")
			}
			return nil, fmt.Errorf("Discontinuous padding not allowed")
		}
		acc = acc<<6 | uint32(v)
		quad++
		switch quad {
		case 2:
			out = append(out, byte(acc>>4))
		case 3:
			out = append(out, byte(acc>>2))
		case 4:
			out = append(out, byte(acc))
			quad, acc = 0, 0
		}
	}
	if quad == 1 {
		return nil, fmt.Errorf("Invalid base64-encoded string: number of data characters (%d) cannot be 1 more than a multiple of 4", len(out)/3*4+1)
	}
	if quad != 0 && quad+pads < 4 {
		return nil, fmt.Errorf("Incorrect padding")
	}
	return out, nil
}

const b64Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// maxBase64Len is the longest base64 text whose decoding can fit under
// AttachmentMaxBytes: anything longer is refused before it is decoded.
const maxBase64Len = (AttachmentMaxBytes + 2) / 3 * 4
