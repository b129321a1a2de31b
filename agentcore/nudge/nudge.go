// Package nudge decides when a conversation gets a background memory or
// skill review, with the counters of the Python Hermes (agent/turn_context.py,
// agent/conversation_loop.py, agent/codex_runtime.py), and runs the review.
//
// Memory: every user turn counts; when the count reaches
// memory.nudge_interval the turn is due for a memory review and the count
// restarts. The decision is taken before the turn runs, as in the
// original, so a due turn stays due even if the model calls memory in it;
// any memory call restarts the count.
//
// Skills: tool iterations add up across turns (on the codex runtime too:
// Result.ToolIterations comes from codex's items); after a turn that
// reaches skills.creation_nudge_interval the turn is due for a skill review
// and the count restarts. A turn that calls skill_manage restarts it
// instead.
//
// A due review only runs when the turn has a final response and was not
// interrupted; the counts restart either way, as in the original.
package nudge

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/hermes-go/hermes/agentcore"

	"github.com/hermes-go/hermes/internal/safefile"
)

// DefaultInterval is Hermes' code default for both intervals.
const DefaultInterval = 10

// Config holds the two intervals; 0 (or less) turns a nudge off.
type Config struct {
	// MemoryInterval is memory.nudge_interval: user turns between memory
	// reviews. Set 0 when the memory tool is not offered.
	MemoryInterval int
	// SkillInterval is skills.creation_nudge_interval: tool iterations
	// between skill reviews. Set 0 when skill_manage is not offered.
	SkillInterval int
}

// DefaultConfig is what an absent config.yaml means.
func DefaultConfig() Config {
	return Config{MemoryInterval: DefaultInterval, SkillInterval: DefaultInterval}
}

// LoadConfig reads memory.nudge_interval and skills.creation_nudge_interval
// from <hermesHome>/config.yaml; a missing file or key means the default,
// an explicit 0 turns the nudge off.
func LoadConfig(hermesHome string) (Config, error) {
	cfg := DefaultConfig()
	path := filepath.Join(hermesHome, "config.yaml")
	data, err := safefile.ReadUserFile(path, safefile.MaxConfigSize)
	if errors.Is(err, fs.ErrNotExist) {
		return cfg, nil
	}
	if err != nil {
		return cfg, fmt.Errorf("nudge: %w", err)
	}
	var raw struct {
		Memory struct {
			NudgeInterval *int `yaml:"nudge_interval"`
		} `yaml:"memory"`
		Skills struct {
			CreationNudgeInterval *int `yaml:"creation_nudge_interval"`
		} `yaml:"skills"`
	}
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return cfg, fmt.Errorf("nudge: %s: memory.nudge_interval and skills.creation_nudge_interval must be integers: %w", path, err)
	}
	if v := raw.Memory.NudgeInterval; v != nil {
		cfg.MemoryInterval = *v
	}
	if v := raw.Skills.CreationNudgeInterval; v != nil {
		cfg.SkillInterval = *v
	}
	return cfg, nil
}

// ReviewConfig is the review agent's own config: it never nudges itself.
var ReviewConfig = Config{}

// Review says which background reviews a turn made due.
type Review struct {
	Memory bool
	Skills bool
}

// Any reports whether a review is due.
func (r Review) Any() bool { return r.Memory || r.Skills }

// Tool names whose calls restart the counters.
const (
	MemoryTool = "memory"
	SkillTool  = "skill_manage"
)

// Counters are one conversation's nudge counters. Safe for concurrent use.
type Counters struct {
	cfg Config

	mu               sync.Mutex
	turnsSinceMemory int
	itersSinceSkill  int
}

// New returns counters at zero.
func New(cfg Config) *Counters { return &Counters{cfg: cfg} }

// Rehydrate sets the memory count for a resumed conversation from the
// user turns it already had, so the rhythm carries on across restarts
// (prior_user_turns % interval, as the original). The skill count is not
// rehydrated: the original does not keep it either.
func (c *Counters) Rehydrate(priorUserTurns int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.turnsSinceMemory = 0
	if c.cfg.MemoryInterval > 0 && priorUserTurns > 0 {
		c.turnsSinceMemory = priorUserTurns % c.cfg.MemoryInterval
	}
}

// UserTurns counts the user messages of a transcript, for Rehydrate.
func UserTurns(msgs []agentcore.Message) int {
	n := 0
	for _, m := range msgs {
		if m.Role == "user" {
			n++
		}
	}
	return n
}

// CalledTools lists the functions the assistant messages in msgs call, for
// AfterTurn (pass the messages the turn added).
func CalledTools(msgs []agentcore.Message) []string {
	var out []string
	for _, m := range msgs {
		for _, tc := range m.ToolCalls {
			out = append(out, tc.Function.Name)
		}
	}
	return out
}

// AfterTurn counts a finished user turn — res and the tools it called — and
// returns the reviews to run now.
func (c *Counters) AfterTurn(res agentcore.Result, calledTools []string) Review {
	c.mu.Lock()
	defer c.mu.Unlock()
	var due Review
	// Pre-loop in the original: the turn counts and is judged before any
	// of its tool calls.
	if c.cfg.MemoryInterval > 0 {
		c.turnsSinceMemory++
		if c.turnsSinceMemory >= c.cfg.MemoryInterval {
			due.Memory = true
			c.turnsSinceMemory = 0
		}
	}
	if c.cfg.SkillInterval > 0 && res.ToolIterations > 0 {
		c.itersSinceSkill += res.ToolIterations
	}
	for _, name := range calledTools {
		// Codex's transcript names MCP tools "mcp.<server>.<tool>".
		if i := strings.LastIndexByte(name, '.'); i >= 0 {
			name = name[i+1:]
		}
		switch name {
		case MemoryTool:
			c.turnsSinceMemory = 0
		case SkillTool:
			// The original counts the few iterations after the call
			// too; those are dropped here, which only delays the next
			// review by as many iterations.
			c.itersSinceSkill = 0
		}
	}
	if c.cfg.SkillInterval > 0 && c.itersSinceSkill >= c.cfg.SkillInterval {
		due.Skills = true
		c.itersSinceSkill = 0
	}
	if res.FinalResponse == "" || res.Interrupted {
		return Review{}
	}
	return due
}

// State returns the counts, for tests and status displays.
func (c *Counters) State() (turnsSinceMemory, itersSinceSkill int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.turnsSinceMemory, c.itersSinceSkill
}
