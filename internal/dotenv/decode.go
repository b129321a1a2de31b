package dotenv

import (
	"bytes"
	"errors"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// ErrUTF32 is a file saved as UTF-32, which the original leaves alone and
// cannot read either.
var ErrUTF32 = errors.New("the file is UTF-32 encoded; save it as UTF-8")

// Decode turns the bytes of a .env file into the text python-dotenv
// parses, as the Python Hermes prepares it: a UTF-16 file (by its byte
// order mark) is read as UTF-16; otherwise NUL bytes are dropped, a UTF-8
// byte order mark is skipped, and a file that is not valid UTF-8 is read
// as Latin-1. Line ends are then made \n, as Python's text mode does.
// latin1 reports the fallback, which usually means the file was saved in
// another encoding.
func Decode(data []byte) (text string, latin1 bool, err error) {
	switch {
	case bytes.HasPrefix(data, []byte{0xff, 0xfe, 0, 0}), bytes.HasPrefix(data, []byte{0, 0, 0xfe, 0xff}):
		return "", false, ErrUTF32
	case bytes.HasPrefix(data, []byte{0xff, 0xfe}):
		text = decodeUTF16(data[2:], false)
	case bytes.HasPrefix(data, []byte{0xfe, 0xff}):
		text = decodeUTF16(data[2:], true)
	default:
		data = bytes.ReplaceAll(data, []byte{0}, nil)
		data = bytes.TrimPrefix(data, []byte{0xef, 0xbb, 0xbf})
		if utf8.Valid(data) {
			text = string(data)
		} else {
			latin1 = true
			runes := make([]rune, len(data))
			for i, b := range data {
				runes[i] = rune(b)
			}
			text = string(runes)
		}
	}
	return strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n"), latin1, nil
}

func decodeUTF16(b []byte, bigEndian bool) string {
	units := make([]uint16, len(b)/2)
	for i := range units {
		if bigEndian {
			units[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
		} else {
			units[i] = uint16(b[2*i+1])<<8 | uint16(b[2*i])
		}
	}
	return string(utf16.Decode(units))
}
