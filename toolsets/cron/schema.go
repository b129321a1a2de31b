package cron

// description is the original's (tools/cronjob_tools.py CRONJOB_SCHEMA)
// trimmed to what this server does, plus who fires the jobs.
const description = "Manage scheduled cron jobs: action='create' schedules a job from a prompt and/or skills; " +
	"'list' inspects jobs; 'update'/'pause'/'resume'/'remove' manage one by job_id (always list first — never guess job IDs).\n\n" +
	"Jobs run in a fresh session with no current-chat context, so prompts must be self-contained, and the agent's " +
	"FINAL RESPONSE is what gets saved — cron runs are autonomous and cannot ask questions. Prefer updating an existing " +
	"job over creating near-duplicates.\n\n" +
	"The jobs are Hermes' own (cron/jobs.json in the Hermes home): Hermes' gateway fires them; this server never runs " +
	"a job, so 'run' is not offered. Jobs made here deliver locally (output saved under cron/output)."

const inputSchema = `{
  "type": "object",
  "properties": {
    "action": {
      "type": "string", "maxLength": 32,
      "description": "One of: create, list, update, pause, resume, remove. When action=create, the 'schedule' and 'prompt' fields are REQUIRED."
    },
    "job_id": {"type": "string", "maxLength": 256, "description": "Required for update/pause/resume/remove: the job's id (or its exact name)."},
    "prompt": {"type": "string", "maxLength": 100000, "description": "For create/update: the full self-contained prompt (paired with any skills as the task instruction)."},
    "schedule": {
      "type": "string", "maxLength": 256,
      "description": "REQUIRED for create. Forms: (1) recurring interval — '30m', 'every 2h', 'every hour' (every 30 minutes / 2 hours / hour, forever by default); (2) one-shot after a duration — 'in 30m', 'in 2h' (fires once that far from now: use it for 'remind me in N minutes' rather than computing a timestamp); (3) natural day and time — 'every monday 9am', 'weekdays at 9am', 'every day at 9am' (recurring); (4) cron syntax — '0 9 * * *' (minute hour day month weekday; JAN-DEC and SUN-SAT names allowed); (5) absolute one-shot — ISO timestamp '2026-06-01T09:00:00'. Times are in the Hermes timezone (HERMES_TIMEZONE or config.yaml timezone, else the server's) unless a timestamp has an offset."
    },
    "name": {"type": "string", "maxLength": 256, "description": "Optional human-friendly name"},
    "repeat": {"type": "integer", "minimum": -1000000, "maximum": 1000000, "description": "Optional repeat count. Omit for defaults (once for one-shot, forever for recurring); 0 or less means forever."},
    "deliver": {"type": "string", "maxLength": 64, "description": "Only 'local' (save output, no message) is accepted here; platform targets are set from Hermes."},
    "include_disabled": {"type": "boolean", "description": "For list: include paused jobs. Default false."},
    "skills": {"type": "array", "maxItems": 64, "items": {"type": "string", "maxLength": 256}, "description": "Optional ordered skill names loaded before the cron prompt. On update, [] clears."},
    "reason": {"type": "string", "maxLength": 1000, "description": "For pause: why, kept on the job."},
    "paused": {"type": "boolean", "description": "Create only: store the job paused. Resume to schedule. Default false."},
    "paused_reason": {"type": "string", "maxLength": 1000, "description": "Create only: auditable reason; requires paused=true."},
    "context_from": {"type": "array", "maxItems": 64, "items": {"type": "string", "maxLength": 256}, "description": "Optional job ID(s) whose most recent completed output is injected as context each run — chains jobs (A collects, B processes). On update, [] clears."},
    "enabled_toolsets": {"type": "array", "maxItems": 64, "items": {"type": "string", "maxLength": 128}, "description": "Optional toolset names to restrict the job's agent to (e.g. [\"web\", \"terminal\"]). Omit for all default tools. On update, [] clears."},
    "workdir": {"type": "string", "maxLength": 4096, "description": "Optional absolute existing path to run the job from: injects that directory's AGENTS.md/context files and anchors terminal/file tools there. On update, '' clears."}
  },
  "required": ["action"]
}`
