package runtimecfg

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/hermes-go/hermes/internal/atomicfile"
	"github.com/hermes-go/hermes/internal/hermeshome"
)

// SaveModel makes model config.yaml's model.default, and provider its
// model.provider when not empty: `/model NAME --global`. The edit is made
// under the Hermes home's lock for config.yaml, on the file as it is once
// locked, every other byte kept; nothing is written when it cannot be.
func SaveModel(ctx context.Context, home, model, provider string) error {
	path := filepath.Join(home, hermeshome.ConfigFile)
	edit, err := atomicfile.Begin(ctx, path, atomicfile.EditOptions{
		Options:  atomicfile.Options{Mode: 0o600},
		LockPath: filepath.Join(home, "locks", hermeshome.ConfigFile+".lock"),
	})
	if err != nil {
		return fmt.Errorf("save the model in %s: %w", path, err)
	}
	defer edit.Close()
	out, err := SetModelKey(edit.Before, "default", model, "/model --global")
	if err == nil && provider != "" {
		out, err = SetModelKey(out, "provider", provider, "/model --global")
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if _, err := edit.Commit(out); err != nil {
		return fmt.Errorf("save the model in %s: %w", path, err)
	}
	return nil
}
