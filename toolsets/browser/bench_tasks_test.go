package browser_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/mcpserver/mcptest"
)

// BenchmarkTokensPerTask drives five scripted tasks through our server and
// the two peers (Playwright MCP twice: without and with its browser_find)
// as a model would, and counts what the model pays for each: the o200k
// tokens of every result's text, the tool definitions', the calls, and
// the input billed without a prompt cache (every request re-sends the
// definitions and all earlier results). Success is read from the task
// site's own server state, never from what the model saw.
//
// The "model" is one script with the same rules for every server: it
// finds a target by its name only in the results it has received since
// the page loaded (parsing each server's refs: ours @eN, Playwright's
// [ref=eN], DevTools' uid=N_M), searching with the server's find tool
// when the target is not there and the server has one, else taking a
// snapshot; it fills forms in one call where the server has a batch fill
// tool; and after every action it must see the new state: when the
// action's result does not show it, it takes a snapshot (and, when that
// does not either, searches for it).
func BenchmarkTokensPerTask(b *testing.B) {
	needChromium(b)
	node, exe := peerSetup(b)
	if node == "" || peerCLI(b, node, "gpt-tokenizer/package.json") == "" {
		b.Skip("the token counts need the pinned Node and gpt-tokenizer (make deps)")
	}
	tok := startTokenizer(b, node)
	var drivers []*taskModel
	drivers = append(drivers, hermesDriver(realServer(b, b.TempDir())))
	if pw := startPlaywright(b, node, exe); pw != nil {
		drivers = append(drivers, playwrightDriver("playwright", pw, false))
		if names, err := pw.ToolNames(); err == nil && slices.Contains(names, "browser_find") {
			drivers = append(drivers, playwrightDriver("playwright+find", startPlaywright(b, node, exe), true))
		} else {
			b.Log("the pinned Playwright MCP has no browser_find: its +find run is left out")
		}
	}
	if cd := startDevTools(b, node, exe); cd != nil {
		drivers = append(drivers, devtoolsDriver(cd))
	}
	for _, d := range drivers {
		defs, err := toolDefinitions(d.c)
		if err != nil {
			b.Fatalf("%s: tools/list: %v", d.name, err)
		}
		d.defTokens = tok.count(b, defs)
	}

	type total struct{ received, calls, billed, ok int }
	totals := make([]total, len(drivers))
	var table strings.Builder
	fmt.Fprintf(&table, "\n%-10s %-16s %9s %6s %6s %10s  %s\n", "task", "server", "received", "defs", "calls", "billed", "success")
	for b.Loop() {
		table.Reset()
		fmt.Fprintf(&table, "\n%-10s %-16s %9s %6s %6s %10s  %s\n", "task", "server", "received", "defs", "calls", "billed", "success")
		totals = make([]total, len(drivers))
		for _, tk := range benchTasks {
			for i, d := range drivers {
				st := newTaskSite(b)
				d.reset()
				runErr := tk.run(d, st.url)
				verr := tk.verify(st)
				counts := make([]int, len(d.results))
				for j, r := range d.results {
					counts[j] = tok.count(b, r)
				}
				received, billed, cum := 0, 0, 0
				for _, n := range counts {
					received += n
					cum += n
					// The request that reads this result: definitions
					// plus every result so far.
					billed += d.defTokens + cum
				}
				if dir := os.Getenv("HERMES_BENCH_TRANSCRIPTS"); dir != "" {
					// For reading what each server returned, call by call.
					_ = os.WriteFile(filepath.Join(dir, tk.name+"-"+d.name+".txt"), []byte(strings.Join(d.transcript, "\n")), 0o600)
				}
				verdict := "ok"
				switch {
				case runErr != nil:
					verdict = "FAIL: " + runErr.Error()
				case verr != nil:
					verdict = "FAIL: " + verr.Error()
				default:
					totals[i].ok++
				}
				if i == 0 && verdict != "ok" {
					// Ours failing a task is a finding, not a number.
					b.Errorf("%s: our server %s", tk.name, verdict)
				}
				totals[i].received += received
				totals[i].calls += len(counts)
				totals[i].billed += billed
				fmt.Fprintf(&table, "%-10s %-16s %9d %6d %6d %10d  %s\n", tk.name, d.name, received, d.defTokens, len(counts), billed, verdict)
			}
		}
	}
	fmt.Fprintf(&table, "%-10s %-16s %9s %6s %6s %10s  %s\n", "", "", "", "", "", "", "")
	for i, d := range drivers {
		t := totals[i]
		fmt.Fprintf(&table, "%-10s %-16s %9d %6d %6d %10d  %d/%d\n", "total", d.name, t.received, d.defTokens, t.calls, t.billed, t.ok, len(benchTasks))
		b.ReportMetric(float64(t.received), d.name+"-received-tokens")
		b.ReportMetric(float64(d.defTokens), d.name+"-definition-tokens")
		b.ReportMetric(float64(t.calls), d.name+"-calls")
		b.ReportMetric(float64(t.billed), d.name+"-billed-tokens")
		b.ReportMetric(float64(t.ok), d.name+"-tasks-ok")
	}
	idx := func(name string) int {
		return slices.IndexFunc(drivers, func(d *taskModel) bool { return d.name == name })
	}
	if p := idx("playwright+find"); p > 0 {
		r := float64(totals[0].received) / float64(totals[p].received)
		b.ReportMetric(r, "received-ratio-vs-playwright+find")
		fmt.Fprintf(&table, "ours received / playwright+find received: %.2f\n", r)
	}
	if p := idx("devtools"); p > 0 {
		r := float64(totals[0].calls) / float64(totals[p].calls)
		b.ReportMetric(r, "calls-ratio-vs-devtools")
		fmt.Fprintf(&table, "ours calls / devtools calls: %.2f\n", r)
	}
	if len(drivers) > 1 {
		best := 1
		for i := 2; i < len(drivers); i++ {
			if totals[i].billed < totals[best].billed {
				best = i
			}
		}
		r := float64(totals[0].billed) / float64(totals[best].billed)
		b.ReportMetric(r, "billed-ratio-vs-best-peer")
		fmt.Fprintf(&table, "ours billed / best peer's billed (%s): %.2f\n", drivers[best].name, r)
	}
	// Printed, not logged: a benchmark's log is cut at 10 lines without -v.
	fmt.Print(table.String())
}

// toolDefinitions is the tools/list answer's tools as JSON, what a client
// sends the model as definitions.
func toolDefinitions(c *mcptest.Client) (string, error) {
	raw, err := c.Request("tools/list", map[string]any{}, 60*time.Second)
	if err != nil {
		return "", err
	}
	var res struct {
		Tools json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return "", err
	}
	return string(res.Tools), nil
}

// tokenizer is one node process counting o200k_base tokens with the
// pinned gpt-tokenizer (testdata/tasks/count_tokens.mjs).
type tokenizer struct {
	mu  sync.Mutex
	in  *bufio.Writer
	out *bufio.Scanner
}

func startTokenizer(b *testing.B, node string) *tokenizer {
	b.Helper()
	root, err := mcptest.RepoRoot()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(node, "testdata/tasks/count_tokens.mjs", filepath.Join(root, ".ci", "npm"))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatalf("start the tokenizer: %v", err)
	}
	b.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Wait()
	})
	sc := bufio.NewScanner(stdout)
	return &tokenizer{in: bufio.NewWriter(stdin), out: sc}
}

func (t *tokenizer) count(b *testing.B, text string) int {
	b.Helper()
	t.mu.Lock()
	defer t.mu.Unlock()
	line, _ := json.Marshal(text)
	if _, err := t.in.Write(append(line, '\n')); err != nil {
		b.Fatalf("tokenizer: %v", err)
	}
	if err := t.in.Flush(); err != nil {
		b.Fatalf("tokenizer: %v", err)
	}
	if !t.out.Scan() {
		b.Fatalf("tokenizer stopped: %v", t.out.Err())
	}
	n, err := strconv.Atoi(t.out.Text())
	if err != nil {
		b.Fatalf("tokenizer answered %q", t.out.Text())
	}
	return n
}

// taskSite serves testdata/tasks on 127.0.0.1 and records what the tasks
// change on its side: the truth a run is checked against.
type taskSite struct {
	url      string
	mu       sync.Mutex
	signins  []string
	cart     []string
	deleted  []string
	comments []string
	settings map[string]string
}

const (
	taskUser     = "alice"
	taskPassword = "correct-horse-battery"
	taskItem     = "Teal Lamp"
	taskVictim   = "user0417"
	taskComment  = "Bees dance to share where the flowers are."
	taskSetting  = "Email me a weekly digest"
)

func newTaskSite(b *testing.B) *taskSite {
	st := &taskSite{}
	mux := http.NewServeMux()
	mux.Handle("/tasks/", http.StripPrefix("/tasks/", http.FileServer(http.Dir("testdata/tasks"))))
	mux.HandleFunc("POST /tasks/signin", func(w http.ResponseWriter, r *http.Request) {
		if r.FormValue("user") != taskUser || r.FormValue("pass") != taskPassword {
			http.Error(w, "wrong user name or password", http.StatusForbidden)
			return
		}
		st.mu.Lock()
		st.signins = append(st.signins, r.FormValue("user"))
		st.mu.Unlock()
		http.Redirect(w, r, "/tasks/welcome?user="+r.FormValue("user"), http.StatusSeeOther)
	})
	mux.HandleFunc("GET /tasks/welcome", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "<!doctype html><link rel=\"icon\" href=\"data:,\"><title>Dashboard</title><h1>Welcome, %s!</h1><p><a href=\"/tasks/signin.html\">Sign out</a></p>",
			html.EscapeString(r.FormValue("user")))
	})
	record := func(path string, add func(r *http.Request) string) {
		mux.HandleFunc("POST "+path, func(w http.ResponseWriter, r *http.Request) {
			_ = r.ParseForm()
			st.mu.Lock()
			out := add(r)
			st.mu.Unlock()
			fmt.Fprint(w, out)
		})
	}
	record("/tasks/cart", func(r *http.Request) string {
		st.cart = append(st.cart, r.FormValue("item"))
		return strconv.Itoa(len(st.cart))
	})
	record("/tasks/admin/delete", func(r *http.Request) string {
		st.deleted = append(st.deleted, r.FormValue("user"))
		return "ok"
	})
	record("/tasks/comment", func(r *http.Request) string {
		st.comments = append(st.comments, r.FormValue("name")+": "+r.FormValue("text"))
		return "ok"
	})
	record("/tasks/settings", func(r *http.Request) string {
		st.settings = map[string]string{}
		for k := range r.PostForm {
			st.settings[k] = r.PostForm.Get(k)
		}
		return "ok"
	})
	srv := httptest.NewServer(mux)
	b.Cleanup(srv.Close)
	st.url = srv.URL + "/tasks/"
	return st
}

type benchTask struct {
	name   string
	run    func(d *taskModel, base string) error
	verify func(st *taskSite) error
}

var benchTasks = []benchTask{
	{
		name: "signin",
		run: func(d *taskModel, base string) error {
			if err := d.open(base + "signin.html"); err != nil {
				return err
			}
			if err := d.fill([]formField{{"Username", "textbox", taskUser}, {"Password", "textbox", taskPassword}}); err != nil {
				return err
			}
			return d.act("button", "Sign in", "Welcome, "+taskUser+"!")
		},
		verify: func(st *taskSite) error {
			if !slices.Equal(st.signins, []string{taskUser}) {
				return fmt.Errorf("the site recorded sign-ins %q", st.signins)
			}
			return nil
		},
	},
	{
		name: "shop200",
		run: func(d *taskModel, base string) error {
			if err := d.open(base + "shop.html"); err != nil {
				return err
			}
			return d.act("button", "Add "+taskItem+" to cart", "Cart: 1 item")
		},
		verify: func(st *taskSite) error {
			if !slices.Equal(st.cart, []string{taskItem}) {
				return fmt.Errorf("the site's cart holds %q", st.cart)
			}
			return nil
		},
	},
	{
		name: "admin1000",
		run: func(d *taskModel, base string) error {
			if err := d.open(base + "admin.html"); err != nil {
				return err
			}
			if err := d.act("button", "Delete "+taskVictim, "Delete "+taskVictim+"? This cannot be undone."); err != nil {
				return err
			}
			return d.acceptDialog("Deleted " + taskVictim)
		},
		verify: func(st *taskSite) error {
			if !slices.Equal(st.deleted, []string{taskVictim}) {
				return fmt.Errorf("the site deleted %q", st.deleted)
			}
			return nil
		},
	},
	{
		name: "article",
		run: func(d *taskModel, base string) error {
			if err := d.open(base + "article.html"); err != nil {
				return err
			}
			if err := d.fill([]formField{{"Name", "textbox", taskUser}, {"Comment", "textbox", taskComment}}); err != nil {
				return err
			}
			return d.act("button", "Post comment", taskComment+" ("+taskUser+")")
		},
		verify: func(st *taskSite) error {
			if !slices.Equal(st.comments, []string{taskUser + ": " + taskComment}) {
				return fmt.Errorf("the site recorded comments %q", st.comments)
			}
			return nil
		},
	},
	{
		name: "settings",
		run: func(d *taskModel, base string) error {
			if err := d.open(base + "settings.html"); err != nil {
				return err
			}
			if err := d.act("tab", "Notifications", taskSetting); err != nil {
				return err
			}
			if err := d.act("checkbox", taskSetting, ""); err != nil {
				return err
			}
			return d.act("button", "Save settings", "Settings saved")
		},
		verify: func(st *taskSite) error {
			want := map[string]string{"digest": "true", "mentions": "true", "public": "true"}
			if fmt.Sprint(st.settings) != fmt.Sprint(want) {
				return fmt.Errorf("the site saved %v, want %v", st.settings, want)
			}
			return nil
		},
	},
}

type formField struct{ name, role, value string }

// taskModel is the scripted model for one server.
type taskModel struct {
	name      string
	c         *mcptest.Client
	defTokens int
	// results are the texts of every result of the current task, in
	// order; seen is where the current page's begin.
	results    []string
	transcript []string
	seen       int

	navigate func(url string) map[string]any // tool arguments
	navTool  string
	snapTool string
	// snapAfterNav: the navigate result carries no snapshot.
	snapAfterNav bool
	findTool     string
	findArgs     func(query string) map[string]any
	clickTool    string
	clickArgs    func(ref string) map[string]any
	fillTool     string
	fillArgs     func(fields []formField, refs []string) map[string]any
	dialogTool   string
	dialogArgs   map[string]any
	// refIn finds the ref of the control with the role and name in one
	// result text.
	refIn func(text, role, name string) string
	// checked says whether a text shows the checkbox named name checked.
	checked func(text, name string) bool
}

func (d *taskModel) reset() { d.results, d.transcript, d.seen = nil, nil, 0 }

func (d *taskModel) call(tool string, args map[string]any) (string, error) {
	res, err := d.c.CallTool(tool, args)
	if err != nil {
		return "", fmt.Errorf("%s: %w", tool, err)
	}
	d.results = append(d.results, res.Text())
	sent, _ := json.Marshal(args)
	d.transcript = append(d.transcript, fmt.Sprintf("=== %s %s\n%s", tool, sent, res.Text()))
	if res.IsError {
		return res.Text(), fmt.Errorf("%s failed: %.200s", tool, res.Text())
	}
	return res.Text(), nil
}

func (d *taskModel) snapshot() (string, error) { return d.call(d.snapTool, map[string]any{}) }

func (d *taskModel) open(url string) error {
	if _, err := d.call(d.navTool, d.navigate(url)); err != nil {
		return err
	}
	d.seen = len(d.results) - 1
	if d.snapAfterNav {
		_, err := d.snapshot()
		return err
	}
	return nil
}

// locate is the ref of a control, from what the model has received on this
// page (latest first), else from the server's find tool, else from a new
// snapshot.
func (d *taskModel) locate(role, name string) (string, error) {
	for i := len(d.results) - 1; i >= d.seen; i-- {
		if ref := d.refIn(d.results[i], role, name); ref != "" {
			return ref, nil
		}
	}
	var text string
	var err error
	if d.findTool != "" {
		text, err = d.call(d.findTool, d.findArgs(name))
	} else {
		text, err = d.snapshot()
	}
	if err != nil {
		return "", err
	}
	if ref := d.refIn(text, role, name); ref != "" {
		return ref, nil
	}
	return "", fmt.Errorf("no %s %q in what the server returned", role, name)
}

func (d *taskModel) fill(fields []formField) error {
	refs := make([]string, len(fields))
	for i, f := range fields {
		ref, err := d.locate(f.role, f.name)
		if err != nil {
			return err
		}
		refs[i] = ref
	}
	_, err := d.call(d.fillTool, d.fillArgs(fields, refs))
	return err
}

// act clicks a control and makes sure the model sees the new state: want
// in the result, or (want empty) the checkbox clicked now checked.
func (d *taskModel) act(role, name, want string) error {
	ref, err := d.locate(role, name)
	if err != nil {
		return err
	}
	text, err := d.call(d.clickTool, d.clickArgs(ref))
	if err != nil {
		return err
	}
	return d.confirm(text, name, want)
}

func (d *taskModel) acceptDialog(want string) error {
	text, err := d.call(d.dialogTool, d.dialogArgs)
	if err != nil {
		return err
	}
	return d.confirm(text, "", want)
}

func (d *taskModel) shows(text, name, want string) bool {
	if want == "" {
		return d.checked(text, name)
	}
	return strings.Contains(text, want)
}

func (d *taskModel) confirm(text, name, want string) error {
	if d.shows(text, name, want) {
		return nil
	}
	text, err := d.snapshot()
	if err != nil {
		return err
	}
	if d.shows(text, name, want) {
		return nil
	}
	if d.findTool != "" && want != "" {
		text, err := d.call(d.findTool, d.findArgs(want))
		if err != nil {
			return err
		}
		if d.shows(text, name, want) {
			return nil
		}
	}
	if want == "" {
		return fmt.Errorf("the server never showed %q checked", name)
	}
	return fmt.Errorf("the server never showed %q", want)
}

// lineRef is the ref of the control named role "name" (the form all three
// outlines share): the first ref after the name on its line (ours,
// Playwright), or the last before it (DevTools' uid=... leads the line).
// A row line of ours lists several controls, so "nearest" would not do.
func lineRef(text, role, name string, ref *regexp.Regexp, before bool) string {
	q := role + " " + strconv.Quote(name)
	for line := range strings.SplitSeq(text, "\n") {
		at := strings.Index(line, q)
		if at < 0 {
			continue
		}
		if before {
			if ms := ref.FindAllStringSubmatch(line[:at], -1); len(ms) > 0 {
				return ms[len(ms)-1][1]
			}
			continue
		}
		if m := ref.FindStringSubmatch(line[at+len(q):]); m != nil {
			return m[1]
		}
	}
	return ""
}

var (
	hermesRef     = regexp.MustCompile(`(?:@|\[ref=)(e\d+)\b`)
	playwrightRef = regexp.MustCompile(`\[ref=([a-z0-9]+)\]`)
	devtoolsRef   = regexp.MustCompile(`uid=(\d+_\d+)`)
)

func checkedLine(text, name string) bool {
	q := strconv.Quote(name)
	for line := range strings.SplitSeq(text, "\n") {
		if strings.Contains(line, q) && strings.Contains(line, "checked") && !strings.Contains(line, "checked=false") && !strings.Contains(line, "unchecked") {
			return true
		}
	}
	return false
}

func hermesDriver(c *mcptest.Client) *taskModel {
	return &taskModel{
		name: "hermes", c: c,
		navTool:   "browser_navigate",
		navigate:  func(url string) map[string]any { return map[string]any{"url": url} },
		snapTool:  "browser_snapshot",
		findTool:  "browser_find",
		findArgs:  func(q string) map[string]any { return map[string]any{"query": q} },
		clickTool: "browser_click",
		clickArgs: func(ref string) map[string]any { return map[string]any{"ref": "@" + ref} },
		fillTool:  "browser_fill",
		fillArgs: func(fields []formField, refs []string) map[string]any {
			var fs []map[string]any
			for i, f := range fields {
				fs = append(fs, map[string]any{"ref": "@" + refs[i], "value": f.value})
			}
			return map[string]any{"fields": fs}
		},
		dialogTool: "browser_dialog",
		dialogArgs: map[string]any{"accept": true},
		refIn:      func(text, role, name string) string { return lineRef(unJSON(text), role, name, hermesRef, false) },
		checked:    func(text, name string) bool { return checkedLine(unJSON(text), name) },
	}
}

// unJSON undoes the JSON string escapes of our results, whose outline
// lines sit inside JSON strings, so names are found as the page has them.
func unJSON(text string) string {
	return strings.NewReplacer(`\n`, "\n", `\"`, `"`, `\\`, `\`).Replace(text)
}

func playwrightDriver(name string, c *mcptest.Client, find bool) *taskModel {
	d := &taskModel{
		name: name, c: c,
		navTool:   "browser_navigate",
		navigate:  func(url string) map[string]any { return map[string]any{"url": url} },
		snapTool:  "browser_snapshot",
		clickTool: "browser_click",
		clickArgs: func(ref string) map[string]any { return map[string]any{"target": ref} },
		fillTool:  "browser_fill_form",
		fillArgs: func(fields []formField, refs []string) map[string]any {
			var fs []map[string]any
			for i, f := range fields {
				fs = append(fs, map[string]any{"name": f.name, "type": f.role, "target": refs[i], "value": f.value})
			}
			return map[string]any{"fields": fs}
		},
		dialogTool: "browser_handle_dialog",
		dialogArgs: map[string]any{"accept": true},
		refIn:      func(text, role, name string) string { return lineRef(text, role, name, playwrightRef, false) },
		checked:    checkedLine,
	}
	if find {
		d.findTool = "browser_find"
		d.findArgs = func(q string) map[string]any { return map[string]any{"text": q} }
	}
	return d
}

func devtoolsDriver(c *mcptest.Client) *taskModel {
	return &taskModel{
		name: "devtools", c: c,
		navTool:      "navigate_page",
		navigate:     func(url string) map[string]any { return map[string]any{"type": "url", "url": url} },
		snapAfterNav: true,
		snapTool:     "take_snapshot",
		clickTool:    "click",
		clickArgs:    func(ref string) map[string]any { return map[string]any{"uid": ref} },
		fillTool:     "fill_form",
		fillArgs: func(fields []formField, refs []string) map[string]any {
			var fs []map[string]any
			for i, f := range fields {
				fs = append(fs, map[string]any{"uid": refs[i], "value": f.value})
			}
			return map[string]any{"elements": fs}
		},
		dialogTool: "handle_dialog",
		dialogArgs: map[string]any{"action": "accept"},
		refIn:      func(text, role, name string) string { return lineRef(text, role, name, devtoolsRef, true) },
		checked:    checkedLine,
	}
}
