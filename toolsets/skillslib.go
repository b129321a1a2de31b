package toolsets

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/toolsets/skills"
)

// NewSkillsLibrary returns the skills library of a Hermes home: <home>/skills
// plus config.yaml's skills.external_dirs (one path or a list; blank
// entries skipped, ~ and $VARS expanded, relative paths taken from the
// home). The skills toolset and the skills extension both serve it.
func NewSkillsLibrary(env Env) (*skills.Library, error) {
	getenv := env.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	var external []string
	for _, d := range env.Config.Skills.ExternalDirs {
		if d = strings.TrimSpace(d); d == "" {
			continue
		}
		p, err := hermeshome.ExpandPath(d, getenv)
		if err != nil {
			return nil, fmt.Errorf("skills.external_dirs: %w", err)
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(env.Home, p)
		}
		external = append(external, p)
	}
	return skills.NewLibrary(skills.Options{Home: env.Home, ExternalDirs: external, LookupEnv: env.LookupEnv, LookPath: env.LookPath, Logger: env.Logger}), nil
}
