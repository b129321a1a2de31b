package runtimecfg

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hermes-go/hermes/internal/atomicfile"
	"github.com/hermes-go/hermes/internal/hermeshome"
)

// SaveModel makes model config.yaml's model.default: `/model NAME
// --global`. provider, the session's, is written as model.provider when
// it differs from the file's and either the file names one or chosen says
// the user picked it (one inferred from the environment stays implicit).
// A provider change is refused when the file sets base_url or api_key:
// they belong to the provider beside them, and the new one's requests
// would go there. The edit is made under the Hermes home's lock for
// config.yaml, on the file as it is once locked, every other byte kept;
// nothing is written when it cannot be.
func SaveModel(ctx context.Context, home, model, provider string, chosen bool) error {
	path := filepath.Join(home, hermeshome.ConfigFile)
	edit, err := atomicfile.Begin(ctx, path, atomicfile.EditOptions{
		Options:  atomicfile.Options{Mode: 0o600},
		LockPath: filepath.Join(home, "locks", hermeshome.ConfigFile+".lock"),
	})
	if err != nil {
		return fmt.Errorf("save the model in %s: %w", path, err)
	}
	defer edit.Close()
	cur, err := LoadModel(edit.Before)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if provider == "" || strings.EqualFold(provider, cur.Provider) || (cur.Provider == "" && !chosen) {
		provider = ""
	} else if cur.Endpoint {
		return fmt.Errorf("%s sets model.base_url or model.api_key for provider %q; saving provider %q would send its requests there. "+
			"Change model.provider, base_url and api_key together by hand, or use /model without --global", path, cur.Provider, provider)
	}
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
