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
