package bridge

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"regexp"
	"strings"
	"sync"

	"github.com/hermes-go/hermes/internal/redact"
)

// maxStderrLine caps one stored stderr line. Codex logs are short lines; a
// longer one is almost always a dumped payload, and its head says enough.
const maxStderrLine = 2048

// errTailLines is how much of the stderr tail goes into error messages: enough
// for the panic or config error that explains an exit, short enough to read.
const errTailLines = 20

// ansiEscape matches the SGR colour sequences codex's tracing output uses.
var ansiEscape = regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]`)

// ringBuffer keeps the last n lines written to it.
type ringBuffer struct {
	mu    sync.Mutex
	lines []string
	next  int
	full  bool
}

func newRingBuffer(n int) *ringBuffer { return &ringBuffer{lines: make([]string, n)} }

func (r *ringBuffer) add(line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines[r.next] = line
	r.next++
	if r.next == len(r.lines) {
		r.next = 0
		r.full = true
	}
}

// last returns up to n of the most recent lines, oldest first; n <= 0 means
// all of them.
func (r *ringBuffer) last(n int) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	if r.full {
		out = append(out, r.lines[r.next:]...)
	}
	out = append(out, r.lines[:r.next]...)
	if n > 0 && len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}

// tail joins and redacts the last n lines. Redaction happens on read, so a
// secret split across lines by the cap is still caught in most cases and the
// hot path (codex logging) stays cheap.
func (r *ringBuffer) tail(n int) string {
	return redact.String(strings.Join(r.last(n), "\n"))
}

// readStderr copies codex's stderr into the ring buffer, line by line, until
// EOF or until the pipe is closed under it.
func readStderr(rd io.Reader, ring *ringBuffer, log *slog.Logger) {
	br := bufio.NewReaderSize(rd, maxStderrLine)
	for {
		line, err := readCappedLine(br)
		if line != "" || err == nil {
			// Codex colours its logs even into a pipe; escapes only
			// garble error messages.
			line = ansiEscape.ReplaceAllString(line, "")
			ring.add(line)
			if log.Enabled(context.Background(), slog.LevelDebug) {
				log.Debug("codex stderr", "line", redact.String(line))
			}
		}
		if err != nil {
			return
		}
	}
}

// readCappedLine returns the next line without its newline, truncated to
// maxStderrLine bytes; the rest of an over-long line is discarded.
func readCappedLine(br *bufio.Reader) (string, error) {
	var b []byte
	for {
		frag, err := br.ReadSlice('\n')
		if room := maxStderrLine - len(b); room > 0 {
			if len(frag) > room {
				b = append(b, frag[:room]...)
			} else {
				b = append(b, frag...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		s := strings.TrimRight(string(b), "\r\n")
		return s, err
	}
}
