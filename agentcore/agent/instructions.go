package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/toolsets"
)

// loadInstructions builds what the conversation is told beyond the system
// prompt: the skills preloaded with --skills, and, when the process is a
// worker the kanban dispatcher started, the worker protocol.
func (c *Conversation) loadInstructions(ctx context.Context) (string, error) {
	var parts []string
	if len(c.opts.Skills) > 0 {
		text, err := preloadSkills(ctx, c.opts.HermesHome, c.opts.Getenv, c.opts.Skills)
		if err != nil {
			return "", err
		}
		parts = append(parts, text)
	}
	if w := workerProtocol(c.opts.Getenv); w != "" {
		parts = append(parts, w)
	}
	return strings.Join(parts, "\n\n"), nil
}

// preloadSkills reads each named skill's SKILL.md from the home's skills
// library (external_dirs included), as skill_view would serve it. A name
// the library does not know stops the conversation before it starts, as
// in the Python Hermes: a worker told to follow a skill it lacks would
// otherwise improvise.
func preloadSkills(ctx context.Context, home string, getenv func(string) string, names []string) (string, error) {
	cfg, err := hermeshome.LoadConfig(home)
	if err != nil {
		return "", err
	}
	lib, err := toolsets.NewSkillsLibrary(toolsets.Env{Home: home, Config: cfg, Getenv: getenv})
	if err != nil {
		return "", err
	}
	var b strings.Builder
	var unknown []string
	for _, name := range names {
		s, err := lib.Lookup(ctx, name)
		if err != nil {
			unknown = append(unknown, name)
			continue
		}
		// As skill_view refuses them: a skill config.yaml disables, or one
		// whose platforms exclude this machine, is not loaded either.
		switch {
		case s.Disabled:
			return "", fmt.Errorf("--skills %s: the skill is disabled (skills.disabled in config.yaml)", name)
		case !s.Supported:
			return "", fmt.Errorf("--skills %s: the skill is not supported on this platform (its frontmatter's platforms)", name)
		}
		body, err := lib.ReadSkillFile(s)
		if err != nil {
			return "", fmt.Errorf("--skills %s: %w", name, err)
		}
		fmt.Fprintf(&b, "# Skill loaded for this session: %s\n\n%s\n\n", s.Name, strings.TrimSpace(string(body)))
	}
	if len(unknown) > 0 {
		return "", fmt.Errorf("unknown skill(s): %s (the skills in %s/skills and skills.external_dirs are the ones that can be loaded; skills_list names them)", strings.Join(unknown, ", "), home)
	}
	return strings.TrimSpace(b.String()), nil
}

// workerProtocol tells a kanban worker how its run ends: the dispatcher
// reads the outcome from the board, never from the chat, and books a
// worker that exits without a verdict as a failure. It is empty unless
// HERMES_KANBAN_TASK names the task this process was started for (and the
// process is not a delegate's, which may not change the board).
func workerProtocol(getenv func(string) string) string {
	task := strings.TrimSpace(getenv("HERMES_KANBAN_TASK"))
	if task == "" || getenv("HERMES_DELEGATED_CHILD_CONTEXT") != "" {
		return ""
	}
	where := ""
	if ws := getenv("HERMES_KANBAN_WORKSPACE"); ws != "" {
		where = fmt.Sprintf(" Your workspace is %s: work there.", ws)
	}
	return fmt.Sprintf(`# Kanban task %s
You were started by the Hermes kanban dispatcher to work on task %s; nobody reads this chat.%s
1. Call kanban_show first: its task and worker_context are the ground truth for what to do.
2. Do the work. On long steps call kanban_heartbeat; record progress and findings with kanban_comment.
3. End the run with exactly one of: kanban_complete (a summary of what you did and where the results are),
   kanban_block (why you cannot go on and what is needed), or kanban_request_review.
Never ask the user a question: if something is missing, block the task saying what. Do not run `+"`hermes kanban`"+` in a shell;
the kanban tools are the way to the board.`, task, task, where)
}
