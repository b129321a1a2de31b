package skills

const listDescription = "List the skills in the user's Hermes skills library. A skill is a set of " +
	"reusable instructions for a particular kind of task (a workflow, a tool's quirks, a house " +
	"style), sometimes with reference docs, templates and scripts. Returns each skill's name, " +
	"one-line description and category. Call this at the start of a task that might have an " +
	"established procedure, or when the user mentions a skill, then load the matching one with " +
	"skill_view. Pass category to narrow a long list."

const viewDescription = "Load one skill from the user's Hermes skills library. Without file_path it " +
	"returns the skill's full instructions (SKILL.md), its tags and related skills, whether it needs " +
	"setup (missing environment variables, credential files or commands), and linked_files: the " +
	"references, templates, assets and scripts that come with it. Follow the instructions when the " +
	"skill fits the task. To read a linked file, call again with the same name and file_path set to " +
	"one of the listed paths, e.g. 'references/api.md'. Use skills_list first to find the name."

// manageDescription is the original's, less what Hermes here lacks (the
// curator, pins) and with its one narrowing: external_dirs are read-only.
const manageDescription = "Manage skills (create, update, delete). Skills are your procedural " +
	"memory — reusable approaches for recurring task types. " +
	"New skills go to $HERMES_HOME/skills/ (~/.hermes/skills/ by default); only skills there can be " +
	"changed, those from skills.external_dirs are read-only.\n\n" +
	"Actions: create (full SKILL.md + optional category), " +
	"patch (old_string/new_string — preferred for fixes), " +
	"edit (full SKILL.md rewrite — major overhauls only), " +
	"delete, write_file, remove_file.\n\n" +
	"On delete, pass `absorbed_into=<umbrella>` when you're merging this skill's content into " +
	"another one, or `absorbed_into=\"\"` when you're pruning it with no forwarding target. The " +
	"target you name in `absorbed_into` must already exist — create/patch the umbrella first, then delete.\n\n" +
	"Create when: complex task succeeded (5+ calls), errors overcome, " +
	"user-corrected approach worked, non-trivial workflow discovered, " +
	"or user asks you to remember a procedure.\n" +
	"Update when: instructions stale/wrong, OS-specific failures, " +
	"missing steps or pitfalls found during use. " +
	"If you used a skill and hit issues not covered by it, patch it immediately.\n\n" +
	"After difficult/iterative tasks, offer to save as a skill. " +
	"Skip for simple one-offs. Confirm with user before creating/deleting.\n\n" +
	"Good skills: trigger conditions, numbered steps with exact commands, " +
	"pitfalls section, verification steps. Use skill_view() to see format examples."

// manageInputSchema is the original's parameters object. Names, paths and
// sizes are checked by the handler, not the schema, so a bad value gets
// the original's message saying how to fix it.
const manageInputSchema = `{
  "type": "object",
  "properties": {
    "action": {
      "type": "string",
      "enum": ["create", "patch", "edit", "delete", "write_file", "remove_file"],
      "description": "The action to perform."
    },
    "name": {
      "type": "string", "maxLength": 8192,
      "description": "Skill name (lowercase, hyphens/underscores, max 64 chars). Must match an existing skill for patch/edit/delete/write_file/remove_file."
    },
    "content": {
      "type": "string", "maxLength": 2097152,
      "description": "Full SKILL.md content (YAML frontmatter + markdown body). Required for 'create' and 'edit'. For 'edit', read the skill first with skill_view() and provide the complete updated text."
    },
    "old_string": {
      "type": "string", "maxLength": 2097152,
      "description": "Text to find in the file (required for 'patch'). Must be unique unless replace_all=true. Include enough surrounding context to ensure uniqueness."
    },
    "new_string": {
      "type": "string", "maxLength": 2097152,
      "description": "Replacement text (required for 'patch'). Can be empty string to delete the matched text."
    },
    "replace_all": {
      "type": "boolean",
      "description": "For 'patch': replace all occurrences instead of requiring a unique match (default: false)."
    },
    "category": {
      "type": "string", "maxLength": 8192,
      "description": "Optional category/domain for organizing the skill (e.g., 'devops', 'data-science', 'mlops'). Creates a subdirectory grouping. Only used with 'create'."
    },
    "file_path": {
      "type": "string", "maxLength": 16384,
      "description": "Path to a supporting file within the skill directory. For 'write_file'/'remove_file': required, must be under references/, templates/, scripts/, or assets/. For 'patch': optional, defaults to SKILL.md if omitted."
    },
    "file_content": {
      "type": "string", "maxLength": 2097152,
      "description": "Content for the file. Required for 'write_file'."
    },
    "absorbed_into": {
      "type": "string", "maxLength": 8192,
      "description": "For 'delete' only: the umbrella skill this skill's content was merged into (it must already exist), or an empty string when the skill is pruned with no forwarding target."
    }
  },
  "required": ["action", "name"],
  "additionalProperties": false
}`

// manageOutputSchema is what every successful action returns; create,
// edit and write_file add where they wrote.
const manageOutputSchema = `{
  "type": "object",
  "properties": {
    "success": {"const": true},
    "message": {"type": "string"},
    "path": {"type": "string"},
    "skill_md": {"type": "string"},
    "category": {"type": "string"},
    "hint": {"type": "string"}
  },
  "required": ["success", "message"]
}`

const listInputSchema = `{
  "type": "object",
  "properties": {
    "category": {
      "type": "string", "maxLength": 8192,
      "description": "Only list skills in this category (the first directory under the skills directory, e.g. 'mlops'). Omit to list every skill."
    }
  },
  "additionalProperties": false
}`

const viewInputSchema = `{
  "type": "object",
  "properties": {
    "name": {
      "type": "string", "maxLength": 8192,
      "description": "The skill to load: its name as shown by skills_list (e.g. 'axolotl'), or its path within the skills directory (e.g. 'mlops/axolotl')."
    },
    "file_path": {
      "type": "string", "maxLength": 16384,
      "description": "A file inside the skill to read instead of SKILL.md, relative to the skill directory, as listed in linked_files (e.g. 'references/api.md', 'scripts/validate.py'). Omit to load the skill itself."
    }
  },
  "required": ["name"],
  "additionalProperties": false
}`

const listOutputSchema = `{
  "type": "object",
  "properties": {
    "success": {"const": true},
    "skills": {
      "type": "array",
      "items": {
        "type": "object",
        "properties": {
          "name": {"type": "string"},
          "description": {"type": ["string", "null"]},
          "category": {"type": ["string", "null"]}
        },
        "required": ["name", "description", "category"]
      }
    },
    "categories": {"type": "array", "items": {"type": "string"}},
    "count": {"type": "integer", "minimum": 0},
    "hint": {"type": "string"},
    "message": {"type": "string"}
  },
  "required": ["success", "skills", "categories"]
}`

// viewOutputSchema covers both success shapes: the skill itself, and one
// of its files.
const viewOutputSchema = `{
  "type": "object",
  "properties": {
    "success": {"const": true},
    "name": {"type": "string"},
    "content": {"type": "string"}
  },
  "required": ["success", "name", "content"],
  "anyOf": [
    {
      "properties": {
        "description": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "related_skills": {"type": "array", "items": {"type": "string"}},
        "path": {"type": "string"},
        "skill_dir": {"type": "string"},
        "linked_files": {
          "type": ["object", "null"],
          "additionalProperties": {"type": "array", "items": {"type": "string"}}
        },
        "usage_hint": {"type": ["string", "null"]},
        "required_environment_variables": {
          "type": "array",
          "items": {
            "type": "object",
            "properties": {
              "name": {"type": "string"},
              "prompt": {"type": "string"},
              "help": {"type": "string"},
              "required_for": {"type": "string"},
              "optional": {"type": "boolean"}
            },
            "required": ["name", "prompt"]
          }
        },
        "required_commands": {"type": "array", "items": {"type": "string"}},
        "missing_required_environment_variables": {"type": "array", "items": {"type": "string"}},
        "missing_credential_files": {"type": "array", "items": {"type": "string"}},
        "missing_required_commands": {"type": "array", "items": {"type": "string"}},
        "setup_needed": {"type": "boolean"},
        "setup_skipped": {"type": "boolean"},
        "readiness_status": {"enum": ["available", "setup_needed", "unsupported"]},
        "setup_help": {"type": "string"},
        "setup_note": {"type": "string"},
        "compatibility": {},
        "metadata": {"type": "object"}
      },
      "required": ["description", "tags", "related_skills", "path", "skill_dir", "linked_files",
        "usage_hint", "required_environment_variables", "required_commands",
        "missing_required_environment_variables", "missing_credential_files",
        "missing_required_commands", "setup_needed", "setup_skipped", "readiness_status"]
    },
    {
      "properties": {
        "file": {"type": "string"},
        "file_type": {"type": "string"},
        "is_binary": {"type": "boolean"}
      },
      "required": ["file", "file_type"]
    }
  ]
}`
