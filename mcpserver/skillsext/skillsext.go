// Package skillsext serves a Hermes skills library through the MCP skills
// extension (SEP-2640, capability "io.modelcontextprotocol/skills"), beside
// the skills_list and skill_view tools and from the same skills.Library:
//
//   - skills/list and skills/get return skill entries: the SKILL.md URI,
//     the frontmatter as written, and a manifest of every file with its
//     sha256 digest and size;
//   - resources/read returns any file of a served skill by its skill:// URI,
//     as text when it is UTF-8 and as base64 otherwise, byte for byte;
//   - resources/directory/read lists the direct children of a directory;
//   - resources/list lists each served skill's SKILL.md, so clients that do
//     not know the extension still find skills as ordinary resources.
//
// A skill's URI is skill://<directory under its skills root>/SKILL.md
// (skill://research/arxiv/SKILL.md). The extension requires the last segment
// to be the skill's frontmatter name and the frontmatter to be parseable to
// the same fields by the host, so skills that break those rules, or exceed
// the extension's per-skill limits, are left out here (and logged once)
// while skills_list still shows them.
//
// After a write through skill_manage the extension sends
// notifications/resources/list_changed (Options.ListChanged).
//
// Results are computed from the files at request time; nothing is cached
// beyond the Library's own index, so a digest always describes the bytes a
// read returns unless the file changes in between, which is the stale case
// the extension leaves to hosts.
package skillsext

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/server"

	"github.com/hermes-go/hermes/mcpserver/jsonrpc"
	"github.com/hermes-go/hermes/toolsets/skills"
)

// ExtensionID is the key of the extension in capabilities.extensions.
const ExtensionID = "io.modelcontextprotocol/skills"

// Methods the extension serves. resources/read and resources/list are base
// protocol methods; the extension serves them for skill:// resources.
const (
	MethodSkillsList    = "skills/list"
	MethodSkillsGet     = "skills/get"
	MethodDirectoryRead = "resources/directory/read"
	MethodResourcesRead = "resources/read"
	MethodResourcesList = "resources/list"
)

// The extension's per-skill limits: a server should not serve a skill
// beyond either, as no host is obliged to load it.
const (
	MaxResourcesPerSkill = 512
	MaxBytesPerSkill     = 16 << 20
)

// DefaultPageSize is how many items a page of skills/list, resources/list
// or resources/directory/read holds when Options.PageSize is 0.
const DefaultPageSize = 50

// DirectoryMIMEType marks directory resources.
const DirectoryMIMEType = "inode/directory"

// cacheScope and ttlMs are the caching hints of 2026-07-28 results. The
// same values mcp-go puts on this server's other list and read results:
// always revalidate, and never share across authorization contexts (these
// are one user's files).
const (
	ttlMs      int64 = 0
	cacheScope       = "private"
)

// Options configure an Extension.
type Options struct {
	// Library is the skills library to serve; it must be the one the skills
	// toolset serves, so both surfaces agree on what a skill is.
	Library *skills.Library
	// PageSize bounds the items per page of list results; 0 means
	// DefaultPageSize.
	PageSize int
	// Logger receives a warning, once per skill, for skills the Library
	// lists that the extension cannot serve; nil discards it.
	Logger *slog.Logger
	// ListChanged tells the server's clients that skills/list and
	// resources/list changed; it runs after every write through
	// skill_manage. Nil tells nobody.
	ListChanged func()
}

// Extension serves the skills extension's methods. It is safe for
// concurrent use.
type Extension struct {
	lib      *skills.Library
	pageSize int
	log      *slog.Logger
	warned   sync.Map // skill dir + reason, logged already
}

// New returns an Extension over opts.Library.
func New(opts Options) *Extension {
	x := &Extension{lib: opts.Library, pageSize: opts.PageSize, log: opts.Logger}
	if x.pageSize <= 0 {
		x.pageSize = DefaultPageSize
	}
	if x.log == nil {
		x.log = slog.New(slog.DiscardHandler)
	}
	// Skills are resources in this extension, so the base protocol's
	// resources list_changed is the notification its clients listen for;
	// a client on 2026-07-28 receives it once subscribed
	// (subscriptions/listen, resourcesListChanged).
	if x.lib != nil && opts.ListChanged != nil {
		x.lib.OnChange(func(context.Context) { opts.ListChanged() })
	}
	return x
}

// Capability is the settings object to declare under
// capabilities.extensions[ExtensionID]: resources/directory/read is served.
// A server declaring it must also declare the resources capability.
func (x *Extension) Capability() map[string]any {
	return map[string]any{"directoryRead": true}
}

// Methods returns the request handlers by method name.
func (x *Extension) Methods() map[string]jsonrpc.MethodFunc {
	return map[string]jsonrpc.MethodFunc{
		MethodSkillsList:    x.listSkills,
		MethodSkillsGet:     x.getSkill,
		MethodResourcesRead: x.readResource,
		MethodResourcesList: x.listResources,
		MethodDirectoryRead: x.readDirectory,
	}
}

// SkillResource is one file in a skill's manifest.
type SkillResource struct {
	URI string `json:"uri"`
	// Digest is "sha256:" and the lowercase hex SHA-256 of the file's bytes.
	Digest string `json:"digest"`
	// Size is the number of bytes Digest covers.
	Size int64 `json:"size"`
}

// Skill is a skill entry, the same in skills/list and skills/get.
type Skill struct {
	// URI is the skill's SKILL.md.
	URI string `json:"uri"`
	// Frontmatter is SKILL.md's YAML frontmatter as a JSON object, every
	// field as written.
	Frontmatter map[string]any `json:"frontmatter"`
	// Resources lists every file of the skill, SKILL.md first. Hermes
	// skills are files on disk, so the manifest is never "dynamic".
	Resources []SkillResource `json:"resources"`
}

// Resource is resource metadata, as resources/list and
// resources/directory/read return it.
type Resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	Size        *int64 `json:"size,omitempty"`
}

// ResourceContents is one file as resources/read returns it: Text for
// UTF-8 content, Blob (base64) otherwise.
type ResourceContents struct {
	URI      string  `json:"uri"`
	MIMEType string  `json:"mimeType,omitempty"`
	Text     *string `json:"text,omitempty"`
	Blob     string  `json:"blob,omitempty"`
}

// cacheHints are the members 2026-07-28 requires on cacheable results and
// earlier revisions do not define; they are set only for modern requests.
type cacheHints struct {
	TTLMs      *int64 `json:"ttlMs,omitempty"`
	CacheScope string `json:"cacheScope,omitempty"`
}

func hints(ctx context.Context) cacheHints {
	if !server.IsModernRequest(ctx) {
		return cacheHints{}
	}
	ttl := ttlMs
	return cacheHints{TTLMs: &ttl, CacheScope: cacheScope}
}

// ListSkillsResult is the result of skills/list.
type ListSkillsResult struct {
	Skills     []Skill `json:"skills"`
	NextCursor string  `json:"nextCursor,omitempty"`
	cacheHints
}

// GetSkillResult is the result of skills/get.
type GetSkillResult struct {
	Skill Skill `json:"skill"`
	cacheHints
}

// ReadResourceResult is the result of resources/read.
type ReadResourceResult struct {
	Contents []ResourceContents `json:"contents"`
	cacheHints
}

// ListResourcesResult is the result of resources/list and of
// resources/directory/read.
type ListResourcesResult struct {
	Resources  []Resource `json:"resources"`
	NextCursor string     `json:"nextCursor,omitempty"`
	cacheHints
}

type cursorParams struct {
	Cursor *string `json:"cursor"`
}

type uriParams struct {
	URI    *string `json:"uri"`
	Cursor *string `json:"cursor"`
}

// decodeParams decodes params into v; absent params decode as {}.
func decodeParams(method string, params json.RawMessage, v any) error {
	if len(params) == 0 {
		return nil
	}
	if err := json.Unmarshal(params, v); err != nil {
		return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params for %s: %v", method, err)
	}
	return nil
}

func uriParam(method, what string, params json.RawMessage) (uriParams, error) {
	var p uriParams
	if err := decodeParams(method, params, &p); err != nil {
		return p, err
	}
	if p.URI == nil || *p.URI == "" {
		return p, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params for %s: uri is required (the URI of %s)", method, what)
	}
	return p, nil
}

// notServed is the -32602 answer for a URI that names nothing served.
func notServed(format, uri string, err error) error {
	msg := fmt.Sprintf(format, uri)
	if errors.Is(err, errTraversal) {
		msg += ": " + err.Error()
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg, Data: map[string]string{"uri": uri}}
}

// startAfter returns the index of the first item whose URI sorts after the
// cursor's; uri(i) is the URI of item i, items sorted by URI.
func startAfter(tag string, cursor *string, uri func(int) string, n int) (int, error) {
	if cursor == nil {
		return 0, nil
	}
	last, err := decodeCursor(tag, *cursor)
	if err != nil {
		return 0, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid cursor %q: pass back the nextCursor of the previous page, or no cursor for the first page", *cursor)
	}
	return sort.Search(n, func(i int) bool { return uri(i) > last }), nil
}

func (x *Extension) listSkills(ctx context.Context, params json.RawMessage) (any, error) {
	var p cursorParams
	if err := decodeParams(MethodSkillsList, params, &p); err != nil {
		return nil, err
	}
	c, err := x.catalog(ctx)
	if err != nil {
		return nil, err
	}
	start, err := startAfter(cursorSkills, p.Cursor, func(i int) string { return c.entries[i].uri }, len(c.entries))
	if err != nil {
		return nil, err
	}
	res := ListSkillsResult{Skills: []Skill{}, cacheHints: hints(ctx)}
	s := x.newServed()
	i := start
	for ; i < len(c.entries) && len(res.Skills) < x.pageSize; i++ {
		sk, ok, err := x.skillEntry(ctx, s, c.entries[i])
		if err != nil {
			return nil, err
		}
		if ok {
			res.Skills = append(res.Skills, sk)
		}
	}
	if i < len(c.entries) {
		res.NextCursor = encodeCursor(cursorSkills, c.entries[i-1].uri)
	}
	return res, nil
}

func (x *Extension) getSkill(ctx context.Context, params json.RawMessage) (any, error) {
	p, err := uriParam(MethodSkillsGet, "a skill's SKILL.md", params)
	if err != nil {
		return nil, err
	}
	uri := *p.URI
	segs, perr := parseURI(uri)
	if perr != nil || len(segs) < 2 || segs[len(segs)-1] != skillFile {
		return nil, notServed("No skill is served at %s", uri, perr)
	}
	c, err := x.catalog(ctx)
	if err != nil {
		return nil, err
	}
	e := c.byKey[join(segs[:len(segs)-1])]
	if e == nil {
		return nil, notServed("No skill is served at %s", uri, nil)
	}
	sk, ok, err := x.skillEntry(ctx, x.newServed(), e)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, notServed("No skill is served at %s", uri, nil)
	}
	return GetSkillResult{Skill: sk, cacheHints: hints(ctx)}, nil
}

// skillEntry builds e's entry, hashing every file. ok is false when e is
// not served after all (over the limits, or gone).
func (x *Extension) skillEntry(ctx context.Context, s *served, e *entry) (Skill, bool, error) {
	t, err := s.tree(e)
	if err != nil || t == nil {
		return Skill{}, false, err
	}
	sum := sha256.Sum256(e.md)
	out := Skill{
		URI:         e.uri,
		Frontmatter: e.frontmatter,
		Resources: []SkillResource{{
			URI:    e.uri,
			Digest: "sha256:" + hex.EncodeToString(sum[:]),
			Size:   int64(len(e.md)),
		}},
	}
	for _, f := range t.files {
		if f.Path == skillFile {
			continue // from the read the frontmatter came from
		}
		if err := ctx.Err(); err != nil {
			return Skill{}, false, err
		}
		digest, size, err := x.digest(e.skill, f.Path)
		if isUserError(err) {
			continue // deleted or re-linked out since the walk: not a file of the skill now
		}
		if err != nil {
			return Skill{}, false, err
		}
		out.Resources = append(out.Resources, SkillResource{URI: fileURI(e, f.Path), Digest: digest, Size: size})
	}
	slices.SortFunc(out.Resources[1:], func(a, b SkillResource) int { return strings.Compare(a.URI, b.URI) })
	return out, true, nil
}

// digest hashes one file of a skill, opened the way resources/read opens
// it.
func (x *Extension) digest(s skills.Skill, rel string) (string, int64, error) {
	f, _, err := x.lib.OpenFile(s, rel)
	if err != nil {
		return "", 0, fmt.Errorf("skill %s: %w", s.Name, err)
	}
	defer f.Close()
	h := sha256.New()
	// OpenFile checked the size; the copy stops there should the file grow.
	n, err := io.Copy(h, io.LimitReader(f, skills.MaxFileBytes+1))
	if err != nil {
		return "", 0, fmt.Errorf("read %s in skill %s: %w", rel, s.Name, err)
	}
	if n > skills.MaxFileBytes {
		return "", 0, fmt.Errorf("skill %s: %s grew past %d bytes while being read: %w", s.Name, rel, skills.MaxFileBytes, skills.ErrTooLarge)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), n, nil
}

// fileURI is the URI of a file of e, rel being slash-separated.
func fileURI(e *entry, rel string) string {
	return buildURI(append(slices.Clone(e.segs), strings.Split(rel, "/")...)...)
}

func (x *Extension) readResource(ctx context.Context, params json.RawMessage) (any, error) {
	p, err := uriParam(MethodResourcesRead, "a file of a skill", params)
	if err != nil {
		return nil, err
	}
	uri := *p.URI
	segs, perr := parseURI(uri)
	if perr != nil {
		return nil, notServed("No skill file is served at %s", uri, perr)
	}
	c, err := x.catalog(ctx)
	if err != nil {
		return nil, err
	}
	s := x.newServed()
	e, t, rel, err := s.enclosing(c, segs)
	if err != nil {
		return nil, err
	}
	if _, listed := t.file(rel); e == nil || !listed {
		if _, isDir, err := x.children(c, s, segs); err != nil {
			return nil, err
		} else if isDir {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "%s is a directory resource; list it with %s", uri, MethodDirectoryRead)
		}
		return nil, notServed("No skill file is served at %s", uri, nil)
	}
	var data []byte
	if rel == skillFile {
		data = e.md // the bytes the entry's digest and frontmatter describe
	} else {
		data, err = x.lib.ReadFile(e.skill, rel)
		if isUserError(err) {
			return nil, notServed("No skill file is served at %s", uri, nil)
		}
		if err != nil {
			return nil, fmt.Errorf("skill %s: %w", e.skill.Name, err)
		}
	}
	contents := ResourceContents{URI: uri, MIMEType: mimeType(rel)}
	if isText(data) {
		text := string(data)
		contents.Text = &text
		if contents.MIMEType == "" {
			contents.MIMEType = "text/plain"
		}
	} else {
		contents.Blob = base64.StdEncoding.EncodeToString(data)
		if contents.MIMEType == "" {
			contents.MIMEType = "application/octet-stream"
		}
	}
	return ReadResourceResult{Contents: []ResourceContents{contents}, cacheHints: hints(ctx)}, nil
}

// isText reports whether data can travel as a text member without losing
// a byte: valid UTF-8 (JSON strings cannot carry anything else) and no NUL,
// which marks binary content.
func isText(data []byte) bool {
	return utf8.Valid(data) && !slices.Contains(data, 0)
}

func (x *Extension) listResources(ctx context.Context, params json.RawMessage) (any, error) {
	var p cursorParams
	if err := decodeParams(MethodResourcesList, params, &p); err != nil {
		return nil, err
	}
	c, err := x.catalog(ctx)
	if err != nil {
		return nil, err
	}
	start, err := startAfter(cursorResources, p.Cursor, func(i int) string { return c.entries[i].uri }, len(c.entries))
	if err != nil {
		return nil, err
	}
	res := ListResourcesResult{Resources: []Resource{}, cacheHints: hints(ctx)}
	s := x.newServed()
	i := start
	for ; i < len(c.entries) && len(res.Resources) < x.pageSize; i++ {
		e := c.entries[i]
		t, err := s.tree(e)
		if err != nil {
			return nil, err
		}
		if t != nil {
			res.Resources = append(res.Resources, skillResource(e))
		}
	}
	if i < len(c.entries) {
		res.NextCursor = encodeCursor(cursorResources, c.entries[i-1].uri)
	}
	return res, nil
}

// skillResource describes a served skill's SKILL.md the way the extension
// asks: named and described by its frontmatter.
func skillResource(e *entry) Resource {
	size := int64(len(e.md))
	return Resource{URI: e.uri, Name: e.name, Description: e.description, MIMEType: "text/markdown", Size: &size}
}

func (x *Extension) readDirectory(ctx context.Context, params json.RawMessage) (any, error) {
	p, err := uriParam(MethodDirectoryRead, "a directory resource", params)
	if err != nil {
		return nil, err
	}
	uri := *p.URI
	// Directory URIs have no trailing slash; one is tolerated, as the
	// slash cannot make it name anything else.
	segs, perr := parseURI(strings.TrimSuffix(uri, "/"))
	if perr != nil {
		return nil, notServed("No directory resource is served at %s", uri, perr)
	}
	c, err := x.catalog(ctx)
	if err != nil {
		return nil, err
	}
	s := x.newServed()
	children, isDir, err := x.children(c, s, segs)
	if err != nil {
		return nil, err
	}
	if !isDir {
		if children != nil { // a file
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "%s is not a directory resource", uri)
		}
		return nil, notServed("No directory resource is served at %s", uri, nil)
	}
	start, err := startAfter(cursorDirectory, p.Cursor, func(i int) string { return children[i].URI }, len(children))
	if err != nil {
		return nil, err
	}
	end := min(start+x.pageSize, len(children))
	res := ListResourcesResult{Resources: children[start:end], cacheHints: hints(ctx)}
	if end < len(children) {
		res.NextCursor = encodeCursor(cursorDirectory, children[end-1].URI)
	}
	return res, nil
}

// children lists the direct children of the directory segs, sorted by URI.
// isDir is false when segs is no directory; children is then non-nil (and
// empty) when segs is a file.
func (x *Extension) children(c *catalog, s *served, segs []string) (children []Resource, isDir bool, err error) {
	e, t, rel, err := s.enclosing(c, segs)
	if err != nil {
		return nil, false, err
	}
	children = []Resource{}
	if e != nil {
		if rel != "" && !t.dirs[rel] {
			if _, file := t.sizes[rel]; file {
				return children, false, nil
			}
			return nil, false, nil
		}
		for d := range t.dirs {
			if path.Dir(d) == cmpDir(rel) {
				children = append(children, Resource{URI: fileURI(e, d), Name: path.Base(d), MIMEType: DirectoryMIMEType})
			}
		}
		for _, f := range t.files {
			if path.Dir(f.Path) != cmpDir(rel) {
				continue
			}
			if path.Base(f.Path) == skillFile {
				// A served skill's SKILL.md, this one's or a nested one's, is
				// that skill's resource, named and described by it.
				owner := e
				if d := path.Dir(f.Path); d != "." {
					owner = c.byKey[join(append(slices.Clone(e.segs), strings.Split(d, "/")...))]
				}
				if owner != nil {
					ot, err := s.tree(owner)
					if err != nil {
						return nil, false, err
					}
					if ot != nil {
						children = append(children, skillResource(owner))
						continue
					}
				}
			}
			size := f.Size
			children = append(children, Resource{URI: fileURI(e, f.Path), Name: path.Base(f.Path), MIMEType: mimeType(f.Path), Size: &size})
		}
	} else {
		// Above every served skill: the directory exists when a served
		// skill lies below it, and holds the next directory on the way.
		seen := map[string]bool{}
		prefix := join(segs) + "/"
		for _, o := range c.entries {
			if !strings.HasPrefix(o.key, prefix) || seen[o.segs[len(segs)]] {
				continue
			}
			t, err := s.tree(o)
			if err != nil {
				return nil, false, err
			}
			if t == nil {
				continue
			}
			name := o.segs[len(segs)]
			seen[name] = true
			children = append(children, Resource{URI: buildURI(append(slices.Clone(segs), name)...), Name: name, MIMEType: DirectoryMIMEType})
		}
		if len(seen) == 0 {
			return nil, false, nil
		}
	}
	slices.SortFunc(children, func(a, b Resource) int { return strings.Compare(a.URI, b.URI) })
	return children, true, nil
}

// cmpDir is rel as path.Dir reports a child's parent: "." for the root.
func cmpDir(rel string) string {
	if rel == "" {
		return "."
	}
	return rel
}
