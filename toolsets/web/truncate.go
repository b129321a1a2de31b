package web

// A long page is cut as the original cuts it (tools/web_tools_truncate.py):
// a head and a tail on line boundaries with a footer, the full text stored
// under <HERMES_HOME>/cache/web/ for read_file. On top of that, ours: the
// cut row says the page's length and the offset to read on from, and a
// call with that offset returns the next window of the stored text, so a
// client without a file tool can read the whole page too.

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/atomicfile"
	"github.com/hermes-go/hermes/internal/pystr"
	"github.com/hermes-go/hermes/internal/safefile"
)

// maxStoredChars caps the stored full text, as the original caps it.
const maxStoredChars = 2_000_000

const (
	ruleShort = "────────"
	ruleLong  = "─────────────────────────────"
)

// cut returns the page whole when it fits the budget, else the original's
// head+tail window and footer, storing the full text.
func (r *extracted) cut(pageURL string, budget int, t *tools) {
	text := []rune(r.Content)
	total := len(text)
	if total <= budget {
		return
	}
	headBudget := int(float64(budget) * 0.75)
	tailBudget := budget - headBudget
	head, tail := text[:headBudget], text[total-tailBudget:]
	if nl := lastRune(head, '\n'); nl >= 0 && float64(nl) > float64(headBudget)*0.5 {
		head = head[:nl]
	}
	if nl := firstRune(tail, '\n'); nl >= 0 && float64(nl) < float64(tailBudget)*0.5 {
		tail = tail[nl+1:]
	}
	path, err := t.storeFullText(pageURL, r.Content)
	if err != nil {
		t.log.Debug("web_extract: full text not stored", "url", pageURL, "err", err)
	}
	lines := []string{"", ruleShort + " [TRUNCATED] " + ruleShort,
		fmt.Sprintf("Showing %s chars (head) + %s chars (tail) of %s total clean characters.",
			commas(len(head)), commas(len(tail)), commas(total))}
	if err == nil {
		lines = append(lines,
			"Full text saved to: "+path,
			fmt.Sprintf("To read the omitted middle: read_file path=\"%s\" offset=%d limit=200  (the file is the complete page; "+
				"raise/lower offset to page through it).", path, strings.Count(string(head), "\n")+2))
	} else {
		lines = append(lines, "Full text could not be stored; re-run web_extract on a more specific URL or use "+
			"browser_navigate for the complete page.")
	}
	lines = append(lines,
		fmt.Sprintf("Or read on with web_extract: call it again with this URL and offset=%d (each call returns the next %s characters).",
			len(head), commas(budget)),
		ruleLong)
	r.Content = string(head) + "\n\n[... middle omitted — see footer ...]\n\n" + string(tail) + "\n" + strings.Join(lines, "\n")
	r.TotalChars = total
	r.NextOffset = jsonInt(len(head))
}

// window returns the budget's worth of the page from offset on, saying
// where the page goes on (or that it ends). fresh text (not read from the
// store) is stored first, so the next offset reads the same text.
func (r *extracted) window(pageURL string, offset, budget int, fresh bool, t *tools) {
	if fresh {
		if _, err := t.storeFullText(pageURL, r.Content); err != nil {
			t.log.Debug("web_extract: full text not stored", "url", pageURL, "err", err)
		}
	}
	text := []rune(r.Content)
	total := len(text)
	if offset >= total {
		r.fail(fmt.Errorf("offset %d is past the end of this page: it has %s characters (offsets 0 to %d)",
			offset, commas(total), max(total-1, 0)))
		return
	}
	end := min(offset+budget, total)
	next := fmt.Sprintf("Next: call web_extract again with this URL and offset=%d.", end)
	r.NextOffset = jsonInt(end)
	if end == total {
		next = "End of page: nothing follows."
		r.NextOffset = jsonNull
	}
	r.Content = string(text[offset:end]) + "\n" + strings.Join([]string{"", ruleShort + " [PAGE] " + ruleShort,
		fmt.Sprintf("Showing characters %s to %s of %s total clean characters.", commas(offset), commas(end), commas(total)),
		next, ruleLong}, "\n")
	r.TotalChars = total
}

var jsonNull = []byte("null")

func lastRune(s []rune, c rune) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == c {
			return i
		}
	}
	return -1
}

func firstRune(s []rune, c rune) int {
	for i, r := range s {
		if r == c {
			return i
		}
	}
	return -1
}

// commas is Python's f"{n:,}".
func commas(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// hostSlug is the original's file-name slug of a URL's host.
func hostSlug(u string) string {
	host := "page"
	if p, err := url.Parse(u); err == nil && p.Hostname() != "" {
		host = pystr.Lower(p.Hostname())
	}
	host = strings.ReplaceAll(host, ":", "_")
	host = slugRE.ReplaceAllString(host, "-")
	if utf8.RuneCountInString(host) > 60 {
		host = string([]rune(host)[:60])
	}
	host = strings.Trim(host, "-")
	if host == "" {
		return "page"
	}
	return host
}

var slugRE = regexp.MustCompile(`[^A-Za-z0-9._-]`)

// storedName is the full text's file name: <hostslug>-<sha256(url)[:10]>.md.
func storedName(u string) string {
	sum := sha256.Sum256([]byte(u))
	return hostSlug(u) + "-" + hex.EncodeToString(sum[:])[:10] + ".md"
}

// cacheDir opens <home>/cache/web, creating what is missing. No link is
// followed on the way: a cache or cache/web that is a link (or not a
// directory) is refused, so a page is never written outside the home.
func (t *tools) cacheDir(create bool) (*os.Root, string, error) {
	if t.home == "" {
		return nil, "", errors.New("no Hermes home")
	}
	root, err := os.OpenRoot(t.home)
	if err != nil {
		return nil, "", err
	}
	for _, d := range []string{"cache", filepath.Join("cache", "web")} {
		fi, err := root.Lstat(d)
		switch {
		case errors.Is(err, fs.ErrNotExist) && create:
			if err := root.Mkdir(d, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
				root.Close()
				return nil, "", err
			}
		case err != nil:
			root.Close()
			return nil, "", err
		case !fi.IsDir():
			root.Close()
			return nil, "", fmt.Errorf("%s is %s, not a directory; refusing to store pages through it",
				filepath.Join(t.home, d), safefile.Describe(fi.Mode()))
		}
	}
	sub, err := root.OpenRoot(filepath.Join("cache", "web"))
	root.Close()
	if err != nil {
		return nil, "", err
	}
	return sub, filepath.Join(t.home, "cache", "web"), nil
}

// storeFullText writes the page's full text (capped as the original caps
// it) and returns the file's path. The file is replaced whole: a link in
// its place is replaced, not followed, and a reader never sees half a page.
func (t *tools) storeFullText(u, content string) (string, error) {
	dir, shown, err := t.cacheDir(true)
	if err != nil {
		return "", err
	}
	defer dir.Close()
	if n := utf8.RuneCountInString(content); n > maxStoredChars {
		content = string([]rune(content)[:maxStoredChars]) + fmt.Sprintf(
			"\n\n[... stored copy truncated at %s chars of %s; re-extract a more specific URL for the rest ...]",
			commas(maxStoredChars), commas(n))
	}
	name := storedName(u)
	if err := atomicfile.WriteIn(dir, name, []byte(content), 0o600, nil); err != nil {
		return "", err
	}
	return filepath.Join(shown, name), nil
}

// maxStoredBytes bounds a read of a stored page: the cap in characters,
// four bytes each, and the marker.
const maxStoredBytes = 4*maxStoredChars + 1024

// loadStored reads the full text stored for u, if there is a regular file
// of it; anything else (a link out of the directory, a FIFO, a file too
// large) is treated as absent and the page is extracted again.
func (t *tools) loadStored(u string) (string, bool) {
	dir, shown, err := t.cacheDir(false)
	if err != nil {
		return "", false
	}
	dir.Close()
	real, err := filepath.EvalSymlinks(shown)
	if err != nil {
		return "", false
	}
	data, err := safefile.ReadFile(real, filepath.Join(real, storedName(u)), maxStoredBytes)
	if err != nil || !utf8.Valid(data) {
		return "", false
	}
	return string(data), true
}

// Binary signatures the original recognises in a "page" a provider sent
// (its unambiguous kinds; PDF is not among them).
var binarySignatures = []struct {
	sig  string
	kind string
}{
	{"SQLite format 3\x00", "SQLite database"},
	{"PK\x03\x04", "ZIP archive"},
	{"\x1f\x8b", "gzip archive"},
	{"BZh", "bzip2 archive"},
	{"\xfd7zXZ\x00", "xz archive"},
	{"7z\xbc\xaf\x27\x1c", "7-Zip archive"},
	{"\x7fELF", "ELF executable"},
	{"\xfe\xed\xfa\xce", "Mach-O executable"},
	{"\xfe\xed\xfa\xcf", "Mach-O executable"},
	{"\xce\xfa\xed\xfe", "Mach-O executable"},
	{"\xcf\xfa\xed\xfe", "Mach-O executable"},
	{"\x89PNG\r\n\x1a\n", "PNG image"},
	{"\xff\xd8\xff", "JPEG image"},
	{"GIF87a", "GIF image"},
	{"GIF89a", "GIF image"},
	{"II*\x00", "TIFF image"},
	{"MM\x00*", "TIFF image"},
	{"fLaC", "FLAC audio"},
	{"OggS", "Ogg media"},
}

// binaryKind names the file type when text is a binary file's bytes
// handed back as text: its first 32 characters as Latin-1 bytes, NULs
// dropped on both sides, as the original compares them.
func binaryKind(text string) string {
	var head []byte
	n := 0
	for _, r := range text {
		if n == 32 {
			break
		}
		n++
		if r <= 0xFF && r != 0 {
			head = append(head, byte(r))
		}
	}
	for _, s := range binarySignatures {
		sig := strings.ReplaceAll(s.sig, "\x00", "")
		if sig != "" && strings.HasPrefix(string(head), sig) {
			return s.kind
		}
	}
	return ""
}

// Inline base64 images are token bombs; the original turns them into
// placeholders and keeps real image links.
var (
	mdDataImage     = regexp.MustCompile(`!\[([^\]]*)\]\([` + pystr.SpaceClass + `]*data:image/[^;]+;base64,[A-Za-z0-9+/=` + pystr.SpaceClass + `]+\)`)
	parenDataImage  = regexp.MustCompile(`\([` + pystr.SpaceClass + `]*data:image/[^;]+;base64,[A-Za-z0-9+/=` + pystr.SpaceClass + `]+\)`)
	bareDataImage   = regexp.MustCompile(`data:image/[^;]+;base64,[A-Za-z0-9+/=]+`)
	imageAltPattern = regexp.MustCompile(`^!\[([^\]]*)\]`)
)

func imagesToPlaceholders(text string) string {
	if !strings.Contains(text, "data:image/") {
		return text
	}
	text = mdDataImage.ReplaceAllStringFunc(text, func(m string) string {
		alt := ""
		if sm := imageAltPattern.FindStringSubmatch(m); sm != nil {
			alt = pystr.Strip(sm[1])
		}
		if alt == "" {
			return "[IMAGE]"
		}
		return "[IMAGE: " + alt + "]"
	})
	text = parenDataImage.ReplaceAllString(text, "[IMAGE]")
	return bareDataImage.ReplaceAllString(text, "[IMAGE]")
}
