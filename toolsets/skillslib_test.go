package toolsets_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/toolsets"
)

// skills.external_dirs written as one path, the way Hermes also reads it,
// adds that directory; blank entries of a list are skipped.
func TestSkillsLibraryExternalDirsForms(t *testing.T) {
	for name, dirs := range map[string]string{
		"one path":             "external_dirs: $SHARED\n",
		"list with blank item": "external_dirs: ['', '  ', $SHARED]\n",
	} {
		t.Run(name, func(t *testing.T) {
			home, shared := t.TempDir(), t.TempDir()
			os.MkdirAll(filepath.Join(shared, "team-skill"), 0o755)
			os.WriteFile(filepath.Join(shared, "team-skill", "SKILL.md"), []byte("---\nname: team-skill\ndescription: Shared.\n---\n"), 0o644)
			os.WriteFile(filepath.Join(home, hermeshome.ConfigFile), []byte("skills:\n  "+dirs), 0o644)
			cfg, err := hermeshome.LoadConfig(home)
			if err != nil {
				t.Fatal(err)
			}
			lib, err := toolsets.NewSkillsLibrary(toolsets.Env{Home: home, Config: cfg, Getenv: func(k string) string {
				if k == "SHARED" {
					return shared
				}
				return ""
			}})
			if err != nil {
				t.Fatal(err)
			}
			if roots := lib.Roots(); !slices.Equal(roots, []string{filepath.Join(home, "skills"), shared}) {
				t.Errorf("roots = %q", roots)
			}
			skills, err := lib.Skills(context.Background())
			if err != nil || len(skills) != 1 || skills[0].Name != "team-skill" {
				t.Errorf("skills = %+v, %v", skills, err)
			}
		})
	}
}
