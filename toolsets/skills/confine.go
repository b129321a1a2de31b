package skills

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/safefile"
)

// The original's limits (skill_manage refuses to write past them), applied
// here to what is read, so a planted 48 MB SKILL.md costs a stat, not the
// server's memory.
const (
	// MaxSkillChars bounds SKILL.md, in characters.
	MaxSkillChars = 100_000
	// MaxFileBytes bounds each supporting file of a skill.
	MaxFileBytes = 1 << 20
)

// maxSkillBytes is the most bytes MaxSkillChars characters of UTF-8 can
// take, with a byte-order mark: the read bound for SKILL.md, beyond which
// it is over the limit whatever it holds.
const maxSkillBytes = MaxSkillChars*utf8.UTFMax + 3

// More errors for errors.Is, beside those of Lookup and ResolveFile.
var (
	// ErrNotServed: the skill, or a file of it, leads out of its skills
	// directory through a symbolic link, is a link loop, or is not a
	// regular file. Such a skill is neither listed nor served; Problems
	// says why.
	ErrNotServed = errors.New("not served")
	// ErrTooLarge: SKILL.md over MaxSkillChars, or a supporting file over
	// MaxFileBytes.
	ErrTooLarge = errors.New("over the size limit")
)

// Problem is a skill, or a directory that may hold skills, that is not
// served, and why.
type Problem struct {
	// Path is what the walk found: the skill directory, or the link.
	Path string
	// Root is the skills directory it was found under.
	Root string
	// RelDir is Path relative to Root, slash-separated.
	RelDir string
	// Reason is a sentence for the user: what is wrong and how to fix it.
	Reason string
}

// The one rule for every path served or watched: after following links it
// must be inside its skills directory (the root, resolved), and files read
// must be regular files under their size limit. Every read of skill content
// goes through readSkillMD, openSkillFile or the walk's confinedDir, which
// all go through safefile.

// realRoot resolves a skills directory once per use; a root that is itself
// a link (skills kept on another disk) is the boundary where it leads.
func realRoot(root string) (string, error) {
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", fmt.Errorf("resolve skills directory %s: %w", root, err)
	}
	return real, nil
}

// readSkillMD reads a whole SKILL.md found under root (resolved as
// rootReal). Memory stays bounded: at most maxSkillBytes+1 bytes are read.
func readSkillMD(rootReal, md string) ([]byte, error) {
	data, err := safefile.ReadFile(rootReal, md, maxSkillBytes)
	if err != nil {
		return nil, skillRefusal(md, err)
	}
	if n := utf8.RuneCount(data); n > MaxSkillChars {
		return nil, tooLargeSkill(md, int64(len(data)))
	}
	return data, nil
}

// checkSkillSize tells, from fstat alone when it can, whether an open
// SKILL.md is over MaxSkillChars; only a file that may be over by its byte
// count but under by its character count is read (bounded) to count.
func checkSkillSize(md string, f *os.File, fi fs.FileInfo) error {
	switch size := fi.Size(); {
	case size <= MaxSkillChars:
		return nil
	case size > maxSkillBytes:
		return tooLargeSkill(md, size)
	}
	data, err := safefile.ReadLimited(f, fi.Size(), maxSkillBytes)
	if err != nil {
		return skillRefusal(md, err)
	}
	if utf8.RuneCount(data) > MaxSkillChars {
		return tooLargeSkill(md, fi.Size())
	}
	return nil
}

func tooLargeSkill(md string, size int64) error {
	return userErrorf(ErrTooLarge, "%s is %d bytes, over the limit of %d characters for SKILL.md. Move detail into files under references/ (each up to %d bytes), which skill_view reads one at a time.",
		md, size, MaxSkillChars, MaxFileBytes)
}

// skillRefusal turns a safefile refusal of SKILL.md (or of the directory
// it is in) into the sentence Problems and skill_view give.
func skillRefusal(p string, err error) error {
	var pe *safefile.PathError
	var tl *safefile.TooLargeError
	switch {
	case errors.As(err, &tl):
		return tooLargeSkill(p, tl.Size)
	case errors.As(err, &pe) && errors.Is(err, safefile.ErrOutside):
		target := pe.Target
		if target == "" {
			target = "a place"
		}
		return userErrorf(ErrNotServed, "%s is a symbolic link to %s, outside the skills directory %s, so it is not served. Move the skill into the skills directory, or add the directory it lives in to skills.external_dirs in config.yaml.",
			p, target, pe.Dir)
	case errors.Is(err, safefile.ErrLoop):
		return userErrorf(ErrNotServed, "%s is a symbolic link loop, so it is not served. Point the link at a real file or remove it.", p)
	case errors.As(err, &pe) && errors.Is(err, safefile.ErrNotRegular):
		return userErrorf(ErrNotServed, "%s is %v, so it is not served. Replace it with a regular file.", p, pe.Err)
	}
	return err
}

// fileRefusal is skillRefusal for a supporting file, named as the caller
// asked for it.
func fileRefusal(rel string, err error) error {
	var tl *safefile.TooLargeError
	switch {
	case errors.As(err, &tl):
		size := "more"
		if tl.Size >= 0 {
			size = fmt.Sprint(tl.Size)
		}
		return userErrorf(ErrTooLarge, "File '%s' is %s bytes, over the limit of %d bytes (1 MiB) for a skill's supporting files, so it is not read. Split it into smaller files in the skill directory.",
			rel, size, MaxFileBytes)
	case errors.Is(err, safefile.ErrOutside):
		return userErrorf(ErrOutsideSkill, "File '%s' resolves outside the skill directory (through a symbolic link) and will not be read. Pass a file that lives inside the skill directory.", rel)
	case errors.Is(err, safefile.ErrLoop):
		return userErrorf(ErrNotServed, "File '%s' is a symbolic link loop and cannot be read. Pass another file from linked_files.", rel)
	case errors.Is(err, safefile.ErrNotRegular):
		return userErrorf(ErrNotServed, "File '%s' is not a regular file (a FIFO, device or directory) and will not be read. Pass a file from linked_files.", rel)
	}
	return err
}

// skillBase is the skill directory, links resolved, checked to be inside
// the skill's root: the directory its files are confined to.
func skillBase(s Skill) (string, error) {
	rootReal, err := realRoot(s.Root)
	if err != nil {
		return "", err
	}
	base, err := safefile.Resolve(rootReal, s.Dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", userErrorf(ErrNotFound, "Skill '%s' not found.", s.Name)
		}
		return "", skillRefusal(s.Dir, err)
	}
	return base, nil
}

// ReadSkillFile reads the skill's SKILL.md, whole, under the rule: inside
// the skills directory after following links, a regular file, at most
// MaxSkillChars characters.
func (l *Library) ReadSkillFile(s Skill) ([]byte, error) {
	if _, err := skillBase(s); err != nil {
		return nil, err
	}
	rootReal, err := realRoot(s.Root)
	if err != nil {
		return nil, err
	}
	return readSkillMD(rootReal, s.SkillFile())
}

// OpenFile opens a file of the skill for reading: relPath as ResolveFile
// takes it, the file a regular one inside the skill directory of at most
// MaxFileBytes. The caller closes it.
func (l *Library) OpenFile(s Skill, relPath string) (*os.File, fs.FileInfo, error) {
	if err := checkRelPath(relPath); err != nil {
		return nil, nil, err
	}
	base, err := skillBase(s)
	if err != nil {
		return nil, nil, err
	}
	f, fi, err := safefile.Open(base, filepath.Join(s.Dir, filepath.FromSlash(relPath)))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, userErrorf(ErrFileNotFound, "File '%s' not found in skill '%s'.", relPath, s.Name)
		}
		return nil, nil, fileRefusal(relPath, err)
	}
	if fi.Size() > MaxFileBytes {
		f.Close()
		return nil, nil, fileRefusal(relPath, &safefile.TooLargeError{Path: relPath, Size: fi.Size(), Limit: MaxFileBytes})
	}
	return f, fi, nil
}

// ReadFile reads a file of the skill as OpenFile opens it, stopping one
// byte past MaxFileBytes should the file grow while being read.
func (l *Library) ReadFile(s Skill, relPath string) ([]byte, error) {
	f, fi, err := l.OpenFile(s, relPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := safefile.ReadLimited(f, fi.Size(), MaxFileBytes)
	if errors.Is(err, safefile.ErrTooLarge) {
		return nil, fileRefusal(relPath, &safefile.TooLargeError{Path: relPath, Size: -1, Limit: MaxFileBytes})
	}
	if err != nil {
		return nil, fmt.Errorf("read %s in skill %s: %w", relPath, s.Name, err)
	}
	return data, nil
}
