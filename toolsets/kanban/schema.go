package kanban

// Tool descriptions, written for the model: when to call each tool and what
// it changes.

const showDescription = "Read everything about a kanban task: its brief, assignee and status, parent and child " +
	"tasks, earlier attempts with their handoffs, comments and recent events, plus worker_context, a ready-made " +
	"summary to read before you start. Call it first when you pick up a task, and again when you retry one."

const listDescription = "List kanban tasks so an orchestrator can see what to route. Filter by assignee, status " +
	"or tenant; archived tasks are left out unless asked for. Returns compact rows (id, title, status, assignee, " +
	"priority, parent and child ids), 50 by default and at most 200, and says when the list was cut short. " +
	"Before listing it promotes tasks whose parents have all finished, like the Hermes CLI. Orchestrators only."

const completeDescription = "Finish your kanban task and hand off the result. Put a short human-readable account " +
	"of what you did in summary and machine-readable facts (changed files, tests run, findings) in metadata; at " +
	"least one of summary or result is needed. List tasks you created with kanban_create in created_cards and " +
	"deliverable files in artifacts. Children waiting on this task become ready."

const blockDescription = "Stop work on your kanban task because you need a person: a decision, an answer, access " +
	"you lack. The reason is shown on the board and to whoever unblocks the task. Only for real blockers, not for " +
	"things you can work out yourself."

const heartbeatDescription = "Tell the board you are still working on your kanban task during a long operation " +
	"(a build, a crawl, a training run): it extends your claim so the dispatcher does not take the task back, and " +
	"logs an optional progress note. Call it every few minutes. Changes nothing else."

const commentDescription = "Add a comment to a kanban task's thread: as a worker, your own task, tasks you created, or your task's " +
	"parents and children. Comments outlive this run: " +
	"use them for questions to the next worker, findings, or the reasoning behind a decision, not for passing " +
	"thoughts."

const createDescription = "Create a kanban task, for example to split your work into pieces for other profiles. " +
	"Give it an assignee and a clear body; list parents to make it wait for other tasks (include your own task id " +
	"to run it after you). The dispatcher starts the assigned profile once the task is ready."

const unblockDescription = "Release a blocked kanban task: it becomes ready again, or waits in todo while a parent " +
	"is unfinished. Orchestrators only; dispatched workers never see this tool."

const linkDescription = "Make one existing kanban task wait for another: the child stays out of ready until every " +
	"parent is done. Links that would form a cycle, or link a task to itself, are refused."

const requestReviewDescription = "Hand your kanban task to review once the work is built, self-checked and verified: " +
	"it moves to the review column (reassigned to reviewer when you name one) and your run ends. Unlike " +
	"kanban_block it is not a blocker, so repeated review rounds are never mistaken for a stuck task."

const requestChangesDescription = "As the reviewer of a kanban task, send it back to its implementer with the " +
	"changes that must be made: your review run ends and the task returns to ready (or todo while a parent is " +
	"unfinished). Use it only on a task you claimed from review; use kanban_block for a real external blocker."

const attachDescription = "Attach a file to a kanban task by passing its bytes inline, base64-encoded: for real " +
	"deliverables the next worker or a person should be able to open, such as a generated report, an image or an " +
	"export. The file is stored with the task (at most 25 MB decoded) and listed by kanban_attachments; its name " +
	"keeps only the last path component and is numbered when already taken. With only a link, use " +
	"kanban_attach_url. A worker may attach only to its own task."

const attachURLDescription = "Attach a file to a kanban task from an http(s) URL: the server downloads it (at " +
	"most 25 MB, up to five redirects, addresses on private networks refused unless allowed) and stores it as " +
	"the task's attachment, named after the URL's last path segment unless you give a filename. Use it when you " +
	"have a link rather than the bytes. A worker may attach only to its own task."

const attachmentsDescription = "List the files attached to a kanban task: id, file name, content type, size, " +
	"who uploaded it, when, and the absolute path where your file tools can read it."

// Input schemas keep Hermes' parameter names, types, enums and required
// lists (tools/kanban_tools.py), so a model prompted for Hermes calls these
// the same way. The descriptions are ours.

const boardProp = `"board": {
      "type": "string", "maxLength": 8192,
      "description": "Slug of the board to use for this call only. Normally omitted: the board comes from HERMES_KANBAN_DB, then HERMES_KANBAN_BOARD, then the kanban/current file, then 'default'."
    }`

const taskIDProp = `"task_id": {
      "type": "string", "maxLength": 8192,
      "description": "The task's id (t_ followed by hex). Omit it to mean your own task, the one in HERMES_KANBAN_TASK."
    }`

const showInput = `{
  "type": "object",
  "properties": {
    ` + taskIDProp + `,
    ` + boardProp + `
  },
  "required": []
}`

const listInput = `{
  "type": "object",
  "properties": {
    "assignee": {"type": "string", "maxLength": 8192, "description": "Only tasks assigned to this profile."},
    "status": {
      "type": "string",
      "enum": ["triage", "todo", "ready", "running", "blocked", "done", "archived"],
      "description": "Only tasks in this status."
    },
    "tenant": {"type": "string", "maxLength": 8192, "description": "Only tasks in this tenant (project namespace)."},
    "include_archived": {"type": "boolean", "description": "Also list archived tasks (default false)."},
    "limit": {"type": "integer", "description": "At most this many tasks (default 50, at most 200)."},
    ` + boardProp + `
  },
  "required": []
}`

const completeInput = `{
  "type": "object",
  "properties": {
    ` + taskIDProp + `,
    "summary": {
      "type": "string", "maxLength": 100000,
      "description": "One to three sentences for people and the next workers: what you did and where the result is. Preferred over result."
    },
    "metadata": {
      "type": "object",
      "description": "Structured facts about this attempt for downstream workers, e.g. {\"changed_files\": [...], \"tests_run\": 12, \"decisions\": [...]}."
    },
    "result": {
      "type": "string", "maxLength": 100000,
      "description": "Short result line stored on the task (older field; use summary when you can)."
    },
    "created_cards": {
      "type": "array", "maxItems": 100,
      "items": {"type": "string", "maxLength": 8192},
      "description": "Ids of tasks you created with kanban_create during this run, exactly as kanban_create returned them. Each is checked; an id that does not exist or is not yours stops the completion so you can correct the list. Omit if you created none."
    },
    "artifacts": {
      "type": "array", "maxItems": 100,
      "items": {"type": "string", "maxLength": 16384},
      "description": "Absolute paths of deliverable files you produced (reports, charts, archives); they are recorded in metadata.artifacts so the person who asked can be sent them. Leave out scratch files."
    },
    ` + boardProp + `
  },
  "required": []
}`

const blockInput = `{
  "type": "object",
  "properties": {
    ` + taskIDProp + `,
    "reason": {
      "type": "string", "maxLength": 100000,
      "description": "The question or missing input that stops you, in a sentence or two. A person reads it on the board; put longer context in a comment."
    },
    ` + boardProp + `
  },
  "required": ["reason"]
}`

const heartbeatInput = `{
  "type": "object",
  "properties": {
    ` + taskIDProp + `,
    "note": {"type": "string", "maxLength": 100000, "description": "Optional short progress note for the task's event log."},
    ` + boardProp + `
  },
  "required": []
}`

const commentInput = `{
  "type": "object",
  "properties": {
    "task_id": {
      "type": "string", "maxLength": 8192,
      "description": "The task whose thread gets the comment: a worker may name its own task, tasks it created, and its task's parents and children. Required even for your own task."
    },
    "body": {"type": "string", "maxLength": 100000, "description": "The comment, Markdown allowed."},
    ` + boardProp + `
  },
  "required": ["task_id", "body"]
}`

const createInput = `{
  "type": "object",
  "properties": {
    "title": {"type": "string", "maxLength": 1024, "description": "Short title of the new task."},
    "assignee": {
      "type": "string", "maxLength": 8192,
      "description": "The Hermes profile that should do the work. Required: the dispatcher only starts tasks that have one."
    },
    "body": {
      "type": "string", "maxLength": 100000,
      "description": "The full brief: what to do, acceptance criteria, links. The assigned worker reads it first."
    },
    "parents": {
      "type": "array", "maxItems": 100,
      "items": {"type": "string", "maxLength": 8192},
      "description": "Ids of tasks that must be done first. The new task waits in todo until all of them are done, then becomes ready on its own."
    },
    "tenant": {
      "type": "string", "maxLength": 8192,
      "description": "Project namespace for the task; defaults to HERMES_TENANT when set, else to the tenant of the first parent that has one."
    },
    "priority": {
      "type": "integer",
      "description": "Tie-breaker among ready tasks for the same assignee; higher runs sooner."
    },
    "workspace_kind": {
      "type": "string",
      "enum": ["scratch", "dir", "worktree"],
      "description": "Where the worker runs: a fresh scratch directory (default, also for a task a worker creates), a shared directory ('dir', needs an absolute workspace_path), or a git worktree."
    },
    "workspace_path": {
      "type": "string", "maxLength": 16384,
      "description": "Absolute path for a 'dir' or 'worktree' workspace."
    },
    "triage": {
      "type": "boolean",
      "description": "Put the task in triage, for someone to flesh out the brief before any work starts."
    },
    "idempotency_key": {
      "type": "string", "maxLength": 8192,
      "description": "When a live task already carries this key, its id is returned instead of creating a second task. Use it to make retries safe."
    },
    "max_runtime_seconds": {
      "type": "integer",
      "description": "Time limit for a worker on this task; past it the dispatcher stops the worker and requeues the task."
    },
    "initial_status": {
      "type": "string",
      "enum": ["running", "blocked"],
      "description": "'running' (default) dispatches as usual; 'blocked' parks the task for a person at once."
    },
    "skills": {
      "type": "array", "maxItems": 100,
      "items": {"type": "string", "maxLength": 8192},
      "description": "Names of skills to load into the worker besides the kanban ones, e.g. ['translation']. They must exist on the assignee's profile."
    },
    "goal_mode": {
      "type": "boolean",
      "description": "Run the worker in a goal loop: after each turn a judge checks the work against the task and, while it is unfinished and turns remain, the worker continues. Default false."
    },
    "goal_max_turns": {
      "type": "integer",
      "description": "Turn budget for goal_mode (default 20); when it runs out the task is blocked for review."
    },
    ` + boardProp + `
  },
  "required": ["title", "assignee"]
}`

const unblockInput = `{
  "type": "object",
  "properties": {
    "task_id": {"type": "string", "maxLength": 8192, "description": "The blocked task to release."},
    ` + boardProp + `
  },
  "required": ["task_id"]
}`

const linkInput = `{
  "type": "object",
  "properties": {
    "parent_id": {"type": "string", "maxLength": 8192, "description": "The task that must finish first."},
    "child_id": {"type": "string", "maxLength": 8192, "description": "The task that waits for it."},
    ` + boardProp + `
  },
  "required": ["parent_id", "child_id"]
}`

const requestReviewInput = `{
  "type": "object",
  "properties": {
    ` + taskIDProp + `,
    "summary": {
      "type": "string", "maxLength": 100000,
      "description": "What you built and how you checked it, in a sentence or two, for the reviewer."
    },
    "reviewer": {
      "type": "string", "maxLength": 8192,
      "description": "Profile to review the work; the task is reassigned to it. Omit to keep the reviewer of the last round, if any."
    },
    "metadata": {
      "type": "object",
      "description": "Structured facts for the reviewer, e.g. changed_files, tests_run, commit.",
      "additionalProperties": true
    },
    ` + boardProp + `
  },
  "required": ["summary"]
}`

const requestChangesInput = `{
  "type": "object",
  "properties": {
    ` + taskIDProp + `,
    "reason": {
      "type": "string", "maxLength": 100000,
      "description": "The specific changes the implementer must make before asking for review again."
    },
    ` + boardProp + `
  },
  "required": ["reason"]
}`

// Output schemas describe the success shapes; failures are error results
// of the form {"error": "..."}.

const okTaskRunOutput = `{
  "type": "object",
  "properties": {
    "ok": {"const": true},
    "task_id": {"type": "string"},
    "run_id": {"type": ["integer", "null"]}
  },
  "required": ["ok", "task_id", "run_id"]
}`

const heartbeatOutput = `{
  "type": "object",
  "properties": {"ok": {"const": true}, "task_id": {"type": "string"}},
  "required": ["ok", "task_id"]
}`

const commentOutput = `{
  "type": "object",
  "properties": {"ok": {"const": true}, "task_id": {"type": "string"}, "comment_id": {"type": "integer"}},
  "required": ["ok", "task_id", "comment_id"]
}`

const statusOutput = `{
  "type": "object",
  "properties": {"ok": {"const": true}, "task_id": {"type": "string"}, "status": {"type": "string"}},
  "required": ["ok", "task_id", "status"]
}`

const linkOutput = `{
  "type": "object",
  "properties": {
    "ok": {"const": true},
    "parent_id": {"type": "string"},
    "child_id": {"type": "string"},
    "gated": {"type": "boolean", "description": "The child was ready and now waits in todo for this parent."},
    "gated_by": {"type": "string"}
  },
  "required": ["ok", "parent_id", "child_id", "gated"]
}`

const createOutput = `{
  "type": "object",
  "properties": {
    "ok": {"const": true},
    "task_id": {"type": "string"},
    "status": {"type": "string"},
    "workspace_kind": {"type": "string"},
    "workspace_path": ` + nullableString + `,
    "project_id": ` + nullableString + `,
    "gated": {"type": "boolean", "description": "The task waits in todo for an unfinished parent."},
    "gated_by": {"type": "string", "description": "The parent it waits for."},
    "subscribed": {"type": "boolean"}
  },
  "required": ["ok", "task_id", "status", "workspace_kind", "workspace_path", "project_id", "gated", "subscribed"]
}`

const requestChangesOutput = `{
  "type": "object",
  "properties": {
    "ok": {"const": true},
    "task_id": {"type": "string"},
    "status": {"enum": ["ready", "todo"]},
    "implementer": {"type": "string"}
  },
  "required": ["ok", "task_id", "status", "implementer"]
}`

const nullableString = `{"type": ["string", "null"]}`
const nullableInt = `{"type": ["integer", "null"]}`

const showOutput = `{
  "type": "object",
  "properties": {
    "task": {
      "type": "object",
      "properties": {
        "id": {"type": "string"},
        "title": {"type": "string"},
        "body": ` + nullableString + `,
        "assignee": ` + nullableString + `,
        "status": {"type": "string"},
        "tenant": ` + nullableString + `,
        "priority": {"type": "integer"},
        "workspace_kind": {"type": "string"},
        "workspace_path": ` + nullableString + `,
        "created_by": ` + nullableString + `,
        "created_at": {"type": "integer"},
        "started_at": ` + nullableInt + `,
        "completed_at": ` + nullableInt + `,
        "result": ` + nullableString + `,
        "current_run_id": ` + nullableInt + `,
        "model_override": ` + nullableString + `
      },
      "required": ["id", "title", "body", "assignee", "status", "tenant", "priority", "workspace_kind",
        "workspace_path", "created_by", "created_at", "started_at", "completed_at", "result",
        "current_run_id", "model_override"]
    },
    "parents": {"type": "array", "items": {"type": "string"}},
    "children": {"type": "array", "items": {"type": "string"}},
    "comments": {
      "type": "array",
      "items": {
        "type": "object",
        "properties": {"author": {"type": "string"}, "body": {"type": "string"}, "created_at": {"type": "integer"}},
        "required": ["author", "body", "created_at"]
      }
    },
    "events": {
      "type": "array",
      "items": {
        "type": "object",
        "properties": {"kind": {"type": "string"}, "payload": {}, "created_at": {"type": "integer"}, "run_id": ` + nullableInt + `},
        "required": ["kind", "payload", "created_at", "run_id"]
      }
    },
    "runs": {
      "type": "array",
      "items": {
        "type": "object",
        "properties": {
          "id": {"type": "integer"},
          "profile": ` + nullableString + `,
          "status": {"type": "string"},
          "outcome": ` + nullableString + `,
          "summary": ` + nullableString + `,
          "error": ` + nullableString + `,
          "metadata": {},
          "started_at": {"type": "integer"},
          "ended_at": ` + nullableInt + `
        },
        "required": ["id", "profile", "status", "outcome", "summary", "error", "metadata", "started_at", "ended_at"]
      }
    },
    "worker_context": {"type": "string"}
  },
  "required": ["task", "parents", "children", "comments", "events", "runs", "worker_context"]
}`

const listOutput = `{
  "type": "object",
  "properties": {
    "tasks": {
      "type": "array",
      "items": {
        "type": "object",
        "properties": {
          "id": {"type": "string"},
          "title": {"type": "string"},
          "assignee": ` + nullableString + `,
          "status": {"type": "string"},
          "priority": {"type": "integer"},
          "tenant": ` + nullableString + `,
          "workspace_kind": {"type": "string"},
          "workspace_path": ` + nullableString + `,
          "created_by": ` + nullableString + `,
          "created_at": {"type": "integer"},
          "started_at": ` + nullableInt + `,
          "completed_at": ` + nullableInt + `,
          "current_run_id": ` + nullableInt + `,
          "model_override": ` + nullableString + `,
          "parents": {"type": "array", "items": {"type": "string"}},
          "children": {"type": "array", "items": {"type": "string"}},
          "parent_count": {"type": "integer"},
          "child_count": {"type": "integer"}
        },
        "required": ["id", "title", "assignee", "status", "priority", "tenant", "parents", "children", "parent_count", "child_count"]
      }
    },
    "count": {"type": "integer", "minimum": 0},
    "limit": {"type": "integer"},
    "truncated": {"type": "boolean"},
    "next_limit": ` + nullableInt + `,
    "promoted": {"type": "integer", "minimum": 0}
  },
  "required": ["tasks", "count", "limit", "truncated", "next_limit", "promoted"]
}`

// The attach tools' parameters and their descriptions are Hermes'
// (tools/kanban_tools_schemas.py), task_id and board aside.

const attachInput = `{
  "type": "object",
  "properties": {
    ` + taskIDProp + `,
    "filename": {
      "type": "string", "maxLength": 8192,
      "description": "File name to store it under (e.g. 'report.pdf'). Directory components are stripped; only the leaf is kept."
    },
    "content_base64": {"type": "string", "maxLength": 40000000, "description": "The file contents, base64-encoded. Max 25 MB decoded."},
    "content_type": {"type": "string", "maxLength": 8192, "description": "Optional MIME type (e.g. 'application/pdf')."},
    ` + boardProp + `
  },
  "required": ["filename", "content_base64"]
}`

const attachURLInput = `{
  "type": "object",
  "properties": {
    ` + taskIDProp + `,
    "url": {"type": "string", "maxLength": 8192, "description": "http(s) URL to fetch and store."},
    "filename": {
      "type": "string", "maxLength": 8192,
      "description": "Optional name to store it under. Defaults to the URL path's leaf component."
    },
    "content_type": {
      "type": "string", "maxLength": 8192,
      "description": "Optional MIME type override. Defaults to the Content-Type the server returns."
    },
    ` + boardProp + `
  },
  "required": ["url"]
}`

const attachmentsInput = `{
  "type": "object",
  "properties": {
    ` + taskIDProp + `,
    ` + boardProp + `
  },
  "required": []
}`

const attachOutput = `{
  "type": "object",
  "properties": {
    "ok": {"const": true},
    "task_id": {"type": "string"},
    "attachment_id": {"type": "integer"},
    "size": {"type": "integer", "minimum": 0}
  },
  "required": ["ok", "task_id", "attachment_id", "size"]
}`

const attachmentsOutput = `{
  "type": "object",
  "properties": {
    "ok": {"const": true},
    "task_id": {"type": "string"},
    "attachments": {
      "type": "array",
      "items": {
        "type": "object",
        "properties": {
          "id": {"type": "integer"},
          "filename": {"type": "string"},
          "content_type": ` + nullableString + `,
          "size": {"type": "integer"},
          "uploaded_by": ` + nullableString + `,
          "stored_path": {"type": "string", "description": "Absolute path of the file, to read with file tools."},
          "created_at": {"type": "integer"}
        },
        "required": ["id", "filename", "content_type", "size", "uploaded_by", "stored_path", "created_at"]
      }
    }
  },
  "required": ["ok", "task_id", "attachments"]
}`
