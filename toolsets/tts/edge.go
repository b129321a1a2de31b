package tts

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/coder/websocket"
)

// Edge TTS is the Microsoft Edge "read aloud" service, Hermes' keyless
// default. These constants are the values edge-tts 7.2.7 sends; the
// service checks the token and the browser version together, so a newer
// release may need tts.edge.chromium_version.
const (
	defaultEdgeURL       = "wss://speech.platform.bing.com/consumer/speech/synthesize/readaloud/edge/v1"
	edgeTrustedToken     = "6A5AA1D4EAFF4E9FB37E23D68491D6F4"
	edgeChromiumFull     = "143.0.3650.75"
	defaultEdgeVoice     = "en-US-AriaNeural"
	edgeOutputFormat     = "audio-24khz-48kbitrate-mono-mp3"
	edgeChunkBytes       = 4096
	edgeMaxAudioBytes    = 64 << 20
	edgeWindowsEpochSecs = 11644473600
)

// EdgeURLEnv overrides the Edge TTS websocket endpoint (ours: the original
// has no override); tests point it at a local fake.
const EdgeURLEnv = "HERMES_EDGE_TTS_URL"

// edgeToken is the Sec-MS-GEC value: the SHA-256 of the Windows file time
// (100 ns ticks since 1601), rounded down to five minutes, followed by the
// trusted client token.
func edgeToken(now time.Time) string {
	s := now.Unix() + edgeWindowsEpochSecs
	s -= s % 300
	sum := sha256.Sum256([]byte(strconv.FormatInt(s*10_000_000, 10) + edgeTrustedToken))
	return strings.ToUpper(hex.EncodeToString(sum[:]))
}

// edgeTimestamp is the JavaScript Date.toString() form the service expects.
func edgeTimestamp(now time.Time) string {
	return now.UTC().Format("Mon Jan 02 2006 15:04:05 GMT+0000 (Coordinated Universal Time)")
}

var edgeVoiceRE = regexp.MustCompile(`^([a-z]{2,})-([A-Z]{2,})-(.+Neural)$`)

// edgeVoiceName turns a short name (en-US-AriaNeural) into the long form
// the SSML needs; other names pass as they are.
func edgeVoiceName(v string) string {
	m := edgeVoiceRE.FindStringSubmatch(v)
	if m == nil {
		return v
	}
	lang, region, name := m[1], m[2], m[3]
	if i := strings.IndexByte(name, '-'); i >= 0 {
		region += "-" + name[:i]
		name = name[i+1:]
	}
	return fmt.Sprintf("Microsoft Server Speech Text to Speech Voice (%s-%s, %s)", lang, region, name)
}

// edgeRate is the prosody rate for a speed multiplier: 1.5 is "+50%".
func edgeRate(speed float64) string {
	if speed <= 0 {
		return "+0%"
	}
	n := int(math.Round((speed - 1) * 100))
	if n < 0 {
		return strconv.Itoa(n) + "%"
	}
	return "+" + strconv.Itoa(n) + "%"
}

// edgeEscape replaces the control characters the service rejects with
// spaces and escapes what XML needs.
func edgeEscape(text string) string {
	var b strings.Builder
	for _, r := range text {
		switch {
		case r <= 8 || r == 11 || r == 12 || (r >= 14 && r <= 31):
			b.WriteByte(' ')
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// edgeChunks splits escaped text into pieces of at most max bytes, at the
// last newline or else the last space, never inside a UTF-8 sequence or an
// &…; entity.
func edgeChunks(text string, max int) []string {
	var out []string
	for len(text) > max {
		cut := strings.LastIndexByte(text[:max], '\n')
		if cut <= 0 {
			cut = strings.LastIndexByte(text[:max], ' ')
		}
		if cut <= 0 {
			cut = max
			for cut > 0 && !utf8.RuneStart(text[cut]) {
				cut--
			}
		}
		if amp := strings.LastIndexByte(text[:cut], '&'); amp >= 0 && !strings.Contains(text[amp:cut], ";") {
			if amp > 0 {
				cut = amp
			}
		}
		if cut <= 0 {
			cut = max
		}
		if piece := strings.TrimSpace(text[:cut]); piece != "" {
			out = append(out, piece)
		}
		text = text[cut:]
	}
	if piece := strings.TrimSpace(text); piece != "" {
		out = append(out, piece)
	}
	return out
}

// edgeClient speaks the read-aloud websocket protocol.
type edgeClient struct {
	endpoint string
	http     *http.Client
	timeout  time.Duration
	now      func() time.Time
	// skew corrects our clock to the service's after a 403, as the token
	// depends on the time.
	skew time.Duration
}

// edgeStatusError is a refused websocket handshake.
type edgeStatusError struct {
	status     int
	retryAfter string
	// skewFrom is the response's Date header, the service's clock.
	skewFrom string
}

func (e *edgeStatusError) Error() string {
	msg := fmt.Sprintf("Edge TTS refused the connection with HTTP %d", e.status)
	switch {
	case e.status == http.StatusTooManyRequests:
		msg += " (rate limited"
		if e.retryAfter != "" {
			msg += "; retry after " + e.retryAfter + "s"
		}
		msg += ")"
	case e.status == http.StatusUnauthorized || e.status == http.StatusForbidden:
		msg += " (the service rejected the client token; a newer hermes-tools or tts.provider set to another provider fixes this)"
	case e.status >= 500:
		msg += " (the service is failing; retry later)"
	}
	return msg
}

// synthesize speaks text and returns MP3 bytes: one websocket per chunk,
// the audio concatenated.
func (c *edgeClient) synthesize(ctx context.Context, text, voice, rate string) ([]byte, error) {
	var audio []byte
	for _, chunk := range edgeChunks(edgeEscape(text), edgeChunkBytes) {
		b, err := c.chunk(ctx, chunk, voice, rate)
		var se *edgeStatusError
		if errors.As(err, &se) && se.status == http.StatusForbidden && se.skewFrom != "" {
			// The token is time-based: a 403 with the server's Date
			// means our clock is off. Adjust and retry once, as
			// edge-tts does.
			if t, perr := http.ParseTime(se.skewFrom); perr == nil {
				c.skew += t.Sub(c.now().Add(c.skew))
				b, err = c.chunk(ctx, chunk, voice, rate)
			}
		}
		if err != nil {
			return nil, err
		}
		audio = append(audio, b...)
		if len(audio) > edgeMaxAudioBytes {
			return nil, fmt.Errorf("Edge TTS sent more than %d MiB of audio", edgeMaxAudioBytes>>20)
		}
	}
	if len(audio) == 0 {
		return nil, errors.New("Edge TTS returned no audio (check tts.edge.voice; `edge-tts --list-voices` lists them)")
	}
	return audio, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func (c *edgeClient) chunk(ctx context.Context, text, voice, rate string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	now := c.now().Add(c.skew)
	u, err := url.Parse(c.endpoint)
	if err != nil {
		return nil, fmt.Errorf("Edge TTS endpoint %q: %w (check %s)", c.endpoint, err, EdgeURLEnv)
	}
	q := u.Query()
	q.Set("TrustedClientToken", edgeTrustedToken)
	q.Set("ConnectionId", randomHex(16))
	q.Set("Sec-MS-GEC", edgeToken(now))
	q.Set("Sec-MS-GEC-Version", "1-"+edgeChromiumFull)
	u.RawQuery = q.Encode()
	major, _, _ := strings.Cut(edgeChromiumFull, ".")
	h := http.Header{}
	h.Set("Pragma", "no-cache")
	h.Set("Cache-Control", "no-cache")
	h.Set("Origin", "chrome-extension://jdiccldimpdaibmpdkjnbmckianbfold")
	h.Set("User-Agent", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/"+major+
		".0.0.0 Safari/537.36 Edg/"+major+".0.0.0")
	h.Set("Accept-Language", "en-US,en;q=0.9")
	h.Set("Cookie", "muid="+strings.ToUpper(randomHex(16))+";")
	conn, resp, err := websocket.Dial(ctx, u.String(), &websocket.DialOptions{
		HTTPClient: c.http, HTTPHeader: h, CompressionMode: websocket.CompressionContextTakeover,
	})
	if err != nil {
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			return nil, &edgeStatusError{status: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After"), skewFrom: resp.Header.Get("Date")}
		}
		if ctx.Err() != nil {
			return nil, errors.New("Edge TTS did not answer in time; retry")
		}
		return nil, &edgeDialError{err: err}
	}
	defer conn.CloseNow()
	conn.SetReadLimit(edgeMaxAudioBytes)

	stamp := edgeTimestamp(now)
	config := "X-Timestamp:" + stamp + "\r\nContent-Type:application/json; charset=utf-8\r\nPath:speech.config\r\n\r\n" +
		`{"context":{"synthesis":{"audio":{"metadataoptions":{"sentenceBoundaryEnabled":"true","wordBoundaryEnabled":"false"},` +
		`"outputFormat":"` + edgeOutputFormat + `"}}}}` + "\r\n"
	ssml := "X-RequestId:" + randomHex(16) + "\r\nContent-Type:application/ssml+xml\r\nX-Timestamp:" + stamp + "Z\r\nPath:ssml\r\n\r\n" +
		"<speak version='1.0' xmlns='http://www.w3.org/2001/10/synthesis' xml:lang='en-US'><voice name='" + edgeVoiceName(voice) +
		"'><prosody pitch='+0Hz' rate='" + rate + "' volume='+0%'>" + text + "</prosody></voice></speak>"
	for _, frame := range []string{config, ssml} {
		if err := conn.Write(ctx, websocket.MessageText, []byte(frame)); err != nil {
			return nil, c.readErr(ctx, "send to", err)
		}
	}

	var audio bytes.Buffer
	for {
		typ, data, err := conn.Read(ctx)
		if err != nil {
			return nil, c.readErr(ctx, "read from", err)
		}
		switch typ {
		case websocket.MessageText:
			head, _, _ := strings.Cut(string(data), "\r\n\r\n")
			switch path := edgeHeader(head, "Path"); path {
			case "turn.start", "response", "audio.metadata":
			case "turn.end":
				conn.Close(websocket.StatusNormalClosure, "")
				return audio.Bytes(), nil
			default:
				return nil, fmt.Errorf("Edge TTS sent an unknown message (Path %q)", path)
			}
		case websocket.MessageBinary:
			if len(data) < 2 {
				return nil, errors.New("Edge TTS sent an audio frame without its header length")
			}
			n := int(binary.BigEndian.Uint16(data))
			if n > len(data)-2 {
				return nil, fmt.Errorf("Edge TTS sent an audio frame whose header (%d bytes) is longer than the frame (%d)", n, len(data))
			}
			head, body := string(data[2:2+n]), data[2+n:]
			if p := edgeHeader(head, "Path"); p != "audio" {
				return nil, fmt.Errorf("Edge TTS sent a binary frame with Path %q, not audio", p)
			}
			ct := edgeHeader(head, "Content-Type")
			if ct == "" && len(body) == 0 {
				continue
			}
			if ct != "audio/mpeg" {
				return nil, fmt.Errorf("Edge TTS sent audio of type %q, not audio/mpeg", ct)
			}
			if len(body) == 0 {
				return nil, errors.New("Edge TTS sent an empty audio frame")
			}
			audio.Write(body)
		}
	}
}

// edgeDialError is a connection that never reached the service: the
// offline case, where espeak-ng may speak instead.
type edgeDialError struct{ err error }

func (e *edgeDialError) Error() string {
	return "cannot reach Edge TTS (offline?): " + e.err.Error()
}

func (c *edgeClient) readErr(ctx context.Context, verb string, err error) error {
	if ctx.Err() != nil {
		return errors.New("Edge TTS did not answer in time; retry")
	}
	return fmt.Errorf("%s Edge TTS: %w", verb, err)
}

// edgeHeader finds a header in a frame's "Key:Value\r\n" block.
func edgeHeader(block, key string) string {
	for _, line := range strings.Split(block, "\r\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok && strings.EqualFold(k, key) {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
