package goals

import (
	"fmt"
	"time"

	"github.com/hermes-go/hermes/internal/hermeshome"
)

// Settings are the goal loop's knobs in config.yaml, with the original's
// defaults.
type Settings struct {
	MaxTurns       int           // goals.max_turns
	JudgeMaxTokens int           // auxiliary.goal_judge.max_tokens
	JudgeTimeout   time.Duration // auxiliary.goal_judge.timeout (seconds)
}

// Defaults as the original's.
const (
	DefaultJudgeMaxTokens = 4096
	DefaultJudgeTimeout   = 30 * time.Second
)

// LoadSettings reads them from <home>/config.yaml. Missing, zero or
// negative values take the defaults, as the original does; a file that is
// not YAML is an error.
func LoadSettings(home string) (Settings, error) {
	s := Settings{MaxTurns: DefaultMaxTurns, JudgeMaxTokens: DefaultJudgeMaxTokens, JudgeTimeout: DefaultJudgeTimeout}
	var raw struct {
		Goals struct {
			MaxTurns any `yaml:"max_turns"`
		} `yaml:"goals"`
		Auxiliary struct {
			GoalJudge struct {
				MaxTokens any `yaml:"max_tokens"`
				Timeout   any `yaml:"timeout"`
			} `yaml:"goal_judge"`
		} `yaml:"auxiliary"`
	}
	if err := hermeshome.Decode(home, &raw); err != nil {
		return s, fmt.Errorf("goal settings: %w", err)
	}
	if n, ok := positive(raw.Goals.MaxTurns); ok {
		s.MaxTurns = int(n)
	}
	if n, ok := positive(raw.Auxiliary.GoalJudge.MaxTokens); ok {
		s.JudgeMaxTokens = int(n)
	}
	if n, ok := positive(raw.Auxiliary.GoalJudge.Timeout); ok {
		s.JudgeTimeout = time.Duration(n * float64(time.Second))
	}
	return s, nil
}

func positive(v any) (float64, bool) {
	var f float64
	switch n := v.(type) {
	case int:
		f = float64(n)
	case float64:
		f = n
	default:
		return 0, false
	}
	return f, f > 0
}
