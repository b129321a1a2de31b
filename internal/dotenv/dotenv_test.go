package dotenv

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/testkit/golden"
)

// oracleCase is one .env file and the process environment it is loaded
// into, with what the real python-dotenv 1.2.2 made of it.
type oracleCase struct {
	Name string            `json:"name"`
	File string            `json:"file_b64"`
	Env  map[string]string `json:"env"`
	// Want is filled by the oracle: [key, value] pairs in load order, a
	// null value for a key named without `=`; Skipped counts the
	// statements python-dotenv warned it could not parse.
	Want    [][2]*string `json:"want"`
	Skipped int          `json:"skipped"`
	// Error is the oracle's refusal (UTF-32).
	Error string `json:"error,omitempty"`
}

// handCases are the rules one by one; randomCases mix their pieces.
var handCases = []struct {
	name string
	file string
	env  map[string]string
}{
	{"plain", "A=1\nB=two words\n", nil},
	{"export and spaces", "export A=1\nexport\tB = spaced value  \n  C=indented\n", nil},
	{"comments", "# full line\nC=val # comment\nD=val#x\nE=http://x?y=1#frag\nF= # only comment\nG=\"q\" # after quotes\n", nil},
	{"double quotes", `A="a\nb\tc\\d\"e\'f\$g\zh"` + "\n" + `B="multi` + "\nline\"\n", nil},
	{"single quotes", `A='a\nb\\c\'d'` + "\nB='multi\nline'\n", nil},
	{"quoted key", "'MY KEY'=1\n'X'=\"y\"\n", nil},
	{"odd keys", "K-EBAB.DOT=ok\nkey.with:colon=v\n", nil},
	{"interpolation", "A=${HOME_X}\nB=${MISSING:-dflt}\nC=${A}-${B}\nD='${A}'\nE=\"${A}\"\nF=$A\nG=${EMPTY:-dflt}\nH=${NOPE:-${A}}\nI=${}\n", map[string]string{"HOME_X": "/home/x", "EMPTY": ""}},
	{"file wins for later refs", "A=file\nB=${A}\nLATER=${AFTER}\nAFTER=z\nSELF=${SELF}x\n", map[string]string{"A": "env", "SELF": "s"}},
	{"no equals", "L\nexport NOEQ\nM=${L}\nN=${NOEQ}\n", map[string]string{"L": "from-env"}},
	{"empty values", "A=\nB=''\nC=\"\"\nD=\n", nil},
	{"duplicates", "A=1\nB=2\nA=3\n", nil},
	{"parse errors", "=novalue\nM=\"quoted\" trailing\nOK=1\n'unterminated=1\nAFTER=2\n", nil},
	{"unterminated double quote swallows", "A=\"open\nB=2\nC=\"close\"\nD=4\n", nil},
	{"crlf", "A=1\r\nB=\"x\r\ny\"\r\nC=3\rD=4\r\n", nil},
	{"bom", "\ufeffA=1\nB=2\n", nil},
	{"nul bytes", "A=1\x00\nB=\x002\n", nil},
	{"latin1 fallback", "A=caf\xe9\nB=2\n", nil},
	{"python whitespace", "A=v\x1c\nB\x1f=1\n\x1eC=2\nD=a\u00a0#c\nE=a\u3000\n", nil},
	{"unicode", "GRÜSSE=héllo wörld 🎉\n", nil},
	{"tabs before comment", "A=x\t# c\nB=y\t#c\n", nil},
	{"empty file", "", nil},
	{"only comments and blanks", "\n\n# a\n   \n\t# b\n", nil},
	{"value with equals", "URL=postgres://u:p@h/db?x=1&y=2\n", nil},
	{"escapes outside quotes", `A=a\nb` + "\n" + `B=\"x\"` + "\n", nil},
}

var utf16Case = func() []byte {
	b := []byte{0xff, 0xfe}
	for _, r := range "A=1\r\nB=\u00e9\n" {
		b = append(b, byte(r), byte(r>>8))
	}
	return b
}()

// pieces are what random files are made of: every construct above, so
// their interactions are compared too.
var pieces = []string{
	"A", "B_2", "export ", "'Q K'", "=", " = ", "\t", " ", "\n", "\r\n", "\r", "#", " #", "# c",
	"\"", "'", `\`, `\\`, `\n`, `\"`, `\'`, "${A}", "${B:-d}", "${A:-}", "$A", "${", "}", ":-",
	"value", "x y", "é", "\u00a0", "\x1c", "\u3000", "🎉", "\ufeff",
}

func randomCases(n int) []oracleCase {
	rng := rand.New(rand.NewPCG(28, 2026))
	var out []oracleCase
	for i := range n {
		var b strings.Builder
		for range 1 + rng.IntN(24) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		out = append(out, oracleCase{
			Name: "random " + string(rune('a'+i/26%26)) + string(rune('a'+i%26)),
			File: base64.StdEncoding.EncodeToString([]byte(b.String())),
			Env:  map[string]string{"A": "env-a"},
		})
	}
	return out
}

func allCases() []oracleCase {
	var out []oracleCase
	for _, c := range handCases {
		out = append(out, oracleCase{Name: c.name, File: base64.StdEncoding.EncodeToString([]byte(c.file)), Env: c.env})
	}
	out = append(out,
		oracleCase{Name: "utf-16", File: base64.StdEncoding.EncodeToString(utf16Case)},
		oracleCase{Name: "utf-32", File: base64.StdEncoding.EncodeToString([]byte{0xff, 0xfe, 0, 0, 'A', 0, 0, 0})},
	)
	return append(out, randomCases(400)...)
}

// oracleScript runs the real python-dotenv on each case, after the
// decoding steps the Python Hermes' env loader takes (hermes_cli
// env_loader: UTF-16 by its byte order mark, UTF-32 left alone, NUL bytes
// dropped, utf-8-sig with a Latin-1 fallback, text-mode newlines), with
// override=True and interpolation on, as load_hermes_dotenv calls it.
const oracleScript = `
import base64, io, json, logging, os, sys
import dotenv
from dotenv.main import DotEnv
assert dotenv.__version__ if hasattr(dotenv, "__version__") else True
warnings = []
class H(logging.Handler):
    def emit(self, record): warnings.append(record.getMessage())
logging.getLogger("dotenv.main").addHandler(H())
cases = json.load(sys.stdin)
for c in cases:
    raw = base64.b64decode(c["file_b64"])
    if raw.startswith(b"\xff\xfe\x00\x00") or raw.startswith(b"\x00\x00\xfe\xff"):
        c["error"] = "utf-32"; c["want"] = []; c["skipped"] = 0; continue
    if raw.startswith(b"\xff\xfe") or raw.startswith(b"\xfe\xff"):
        text = raw.decode("utf-16")
    else:
        raw = raw.replace(b"\x00", b"")
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            text = (raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw).decode("latin-1")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    os.environ.clear(); os.environ.update(c.get("env") or {})
    warnings.clear()
    values = DotEnv(None, stream=io.StringIO(text), override=True, interpolate=True).dict()
    c["want"] = [[k, v] for k, v in values.items()]
    c["skipped"] = sum(1 for w in warnings if "could not parse" in w)
json.dump(cases, sys.stdout, ensure_ascii=False, indent=1)
`

const goldenPath = "testdata/python-dotenv-1.2.2.json"

// TestAgainstPythonDotenv compares Parse, Decode and Resolve with what the
// real python-dotenv 1.2.2 (the version hermes-agent pins) made of the
// same files: every rule in handCases and 400 random files mixing them.
// `go test ./internal/dotenv -run PythonDotenv -update` asks python3 again
// (it needs python-dotenv 1.2.2 importable) and rewrites the golden file.
func TestAgainstPythonDotenv(t *testing.T) {
	if golden.Update() {
		in, err := json.Marshal(allCases())
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("python3", "-c", "import dotenv.version as v; assert v.__version__ == '1.2.2', v.__version__\n"+oracleScript)
		cmd.Stdin = bytes.NewReader(in)
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("python-dotenv 1.2.2 is needed to regenerate %s: %v", goldenPath, err)
		}
		if err := os.MkdirAll(filepath.Dir(goldenPath), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(goldenPath, append(out, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(goldenPath)
	if err != nil {
		t.Fatal(err)
	}
	var cases []oracleCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) != len(allCases()) {
		t.Fatalf("%s holds %d cases, the test has %d: run with -update", goldenPath, len(cases), len(allCases()))
	}
	for _, c := range cases {
		raw, _ := base64.StdEncoding.DecodeString(c.File)
		text, _, err := Decode(raw)
		if c.Error != "" {
			if err == nil {
				t.Errorf("%s: decoded a file python refuses (%s)", c.Name, c.Error)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.Name, err)
			continue
		}
		bindings, skipped := Parse(text)
		vars := Resolve(bindings, func(k string) (string, bool) { v, ok := c.Env[k]; return v, ok })
		var got [][2]*string
		for _, v := range vars {
			k, val := v.Key, v.Value
			pair := [2]*string{&k, nil}
			if v.Set {
				pair[1] = &val
			}
			got = append(got, pair)
		}
		if show(got) != show(c.Want) || len(skipped) != c.Skipped {
			t.Errorf("%s: file %q\n got %s (%d skipped)\nwant %s (%d skipped)", c.Name, raw, show(got), len(skipped), show(c.Want), c.Skipped)
		}
	}
}

func show(pairs [][2]*string) string {
	var b strings.Builder
	for _, p := range pairs {
		b.WriteString(*p[0])
		if p[1] == nil {
			b.WriteString("=<none> ")
			continue
		}
		b.WriteString("=" + strings.ReplaceAll(*p[1], "\n", `\n`) + " ")
	}
	return b.String()
}

func TestLineNumbers(t *testing.T) {
	bindings, skipped := Parse("A=1\n\n# c\nB=\"x\ny\"\n=bad\nC=3\n")
	lines := map[string]int{}
	for _, b := range bindings {
		lines[b.Key] = b.Line
	}
	if lines["A"] != 1 || lines["B"] != 4 || lines["C"] != 7 || len(skipped) != 1 || skipped[0] != 6 {
		t.Errorf("lines %v, skipped %v", lines, skipped)
	}
}

// FuzzParse: any text parses without panicking, in linear time, and
// every key it yields is a key python-dotenv could have read.
func FuzzParse(f *testing.F) {
	for _, c := range handCases {
		f.Add(c.file)
	}
	f.Fuzz(func(t *testing.T, text string) {
		bindings, _ := Parse(text)
		for _, b := range bindings {
			if b.Key == "" {
				t.Fatalf("empty key from %q", text)
			}
		}
		Resolve(bindings, func(string) (string, bool) { return "", false })
	})
}
