package fakeapis

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/coder/websocket"
)

// Edge is the Edge read-aloud TTS websocket (edge-tts 7.2.7's protocol).
// Base(Edge) + "/consumer/speech/synthesize/readaloud/edge/v1" is the
// endpoint. Path segments before "consumer" steer the handshake: the
// common triggers (trigger-401, trigger-429, trigger-500,
// trigger-malformed: a 200 instead of the upgrade) and "skew-<seconds>",
// a service clock that far ahead of ours, so a client's token is refused
// with 403 and the service's Date until it corrects its clock. In the
// spoken text, "trigger-garbled" sends an audio frame whose header length
// overruns it, "trigger-noaudio" ends the turn without audio,
// "trigger-unknown" sends a text frame of an unknown Path, and
// "trigger-slow" never answers.
const Edge = "edge"

// EdgeTrustedToken is the client token edge-tts sends.
const EdgeTrustedToken = "6A5AA1D4EAFF4E9FB37E23D68491D6F4"

// EdgeSession is what the fake received on one websocket.
type EdgeSession struct {
	Query  map[string]string
	Header http.Header
	// Frames are the text frames in order: speech.config, then ssml.
	Frames []string
}

// EdgeSessions returns the websocket sessions the Edge fake accepted.
func (s *Server) EdgeSessions() []EdgeSession {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]EdgeSession(nil), s.edge...)
}

// edgeGEC is the service's view of a valid Sec-MS-GEC at t.
func edgeGEC(t time.Time) string {
	ticks := (t.Unix() + 11644473600)
	ticks -= ticks % 300
	sum := sha256.Sum256([]byte(strconv.FormatInt(ticks*10_000_000, 10) + EdgeTrustedToken))
	return strings.ToUpper(hex.EncodeToString(sum[:]))
}

var (
	edgeSkewRE  = regexp.MustCompile(`/skew-(\d+)/`)
	edgeProsody = regexp.MustCompile(`<prosody pitch='[+-]\d+Hz' rate='[+-]\d+%' volume='[+-]\d+%'>([^<]*)</prosody>`)
)

const edgeConfigBody = `{"context":{"synthesis":{"audio":{"metadataoptions":{"sentenceBoundaryEnabled":"true","wordBoundaryEnabled":"false"},"outputFormat":"audio-24khz-48kbitrate-mono-mp3"}}}}` + "\r\n"

func (s *Server) edgeTTS(w http.ResponseWriter, r *http.Request, path string) {
	if !strings.HasSuffix(path, "/consumer/speech/synthesize/readaloud/edge/v1") {
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	now := time.Now()
	if m := edgeSkewRE.FindStringSubmatch(path); m != nil {
		secs, _ := strconv.Atoi(m[1])
		now = now.Add(time.Duration(secs) * time.Second)
	}
	gec := q.Get("Sec-MS-GEC")
	if q.Get("TrustedClientToken") != EdgeTrustedToken || (gec != edgeGEC(now) && gec != edgeGEC(now.Add(-300*time.Second))) ||
		!strings.HasPrefix(q.Get("Sec-MS-GEC-Version"), "1-") || len(q.Get("ConnectionId")) != 32 ||
		r.Header.Get("Origin") != "chrome-extension://jdiccldimpdaibmpdkjnbmckianbfold" {
		w.Header().Set("Date", now.UTC().Format(http.TimeFormat))
		http.Error(w, "Forbidden", http.StatusForbidden)
		return
	}
	// The extension origin was checked above.
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{CompressionMode: websocket.CompressionContextTakeover, OriginPatterns: []string{"jdiccldimpdaibmpdkjnbmckianbfold"}})
	if err != nil {
		return
	}
	defer conn.CloseNow()
	sess := EdgeSession{Query: map[string]string{}, Header: r.Header.Clone()}
	for k := range q {
		sess.Query[k] = q.Get(k)
	}
	ctx := r.Context()
	fail := func(msg string) {
		conn.Close(websocket.StatusPolicyViolation, msg)
	}
	var text string
	for len(sess.Frames) < 2 {
		typ, data, err := conn.Read(ctx)
		if err != nil {
			return
		}
		if typ != websocket.MessageText {
			fail("expected a text frame")
			return
		}
		sess.Frames = append(sess.Frames, string(data))
	}
	s.mu.Lock()
	s.edge = append(s.edge, sess)
	s.mu.Unlock()
	head, body, _ := strings.Cut(sess.Frames[0], "\r\n\r\n")
	if !strings.Contains(head, "Path:speech.config") || body != edgeConfigBody {
		fail("bad speech.config")
		return
	}
	head, body, _ = strings.Cut(sess.Frames[1], "\r\n\r\n")
	m := edgeProsody.FindStringSubmatch(body)
	if !strings.Contains(head, "Path:ssml") || !strings.Contains(head, "Content-Type:application/ssml+xml") || m == nil ||
		!strings.HasPrefix(body, "<speak version='1.0' xmlns='http://www.w3.org/2001/10/synthesis' xml:lang='en-US'><voice name='Microsoft Server Speech Text to Speech Voice (") {
		fail("bad ssml")
		return
	}
	text = m[1]
	if strings.Contains(text, "trigger-slow") {
		select {
		case <-ctx.Done():
		case <-s.done:
		}
		return
	}
	reqID := strings.TrimPrefix(strings.SplitN(head, "\r\n", 2)[0], "X-RequestId:")
	send := func(path, body string) {
		_ = conn.Write(ctx, websocket.MessageText, []byte(fmt.Sprintf("X-RequestId:%s\r\nContent-Type:application/json; charset=utf-8\r\nPath:%s\r\n\r\n%s", reqID, path, body)))
	}
	audio := func(ct string, data []byte, lie int) {
		h := "X-RequestId:" + reqID + "\r\n"
		if ct != "" {
			h += "Content-Type:" + ct + "\r\n"
		}
		h += "X-StreamId:FAKESTREAM\r\nPath:audio\r\n"
		frame := binary.BigEndian.AppendUint16(nil, uint16(len(h)+lie))
		frame = append(append(frame, h...), data...)
		_ = conn.Write(ctx, websocket.MessageBinary, frame)
	}
	send("turn.start", `{"context":{"serviceTag":"fake"}}`)
	switch {
	case strings.Contains(text, "trigger-noaudio"):
	case strings.Contains(text, "trigger-unknown"):
		send("surprise", "{}")
	case strings.Contains(text, "trigger-garbled"):
		audio("audio/mpeg", MP3(), 5000)
	default:
		mp3 := MP3()
		audio("audio/mpeg", mp3[:100], 0)
		send("audio.metadata", fmt.Sprintf(`{"Metadata":[{"Type":"SentenceBoundary","Data":{"Offset":1000000,"Duration":5000000,"text":{"Text":%q,"Length":%d,"BoundaryType":"SentenceBoundary"}}}]}`, text, len(text)))
		audio("audio/mpeg", mp3[100:], 0)
		audio("", nil, 0)
	}
	send("turn.end", "{}")
	// The client closes after turn.end; wait for it.
	_, _, _ = conn.Read(ctx)
}
