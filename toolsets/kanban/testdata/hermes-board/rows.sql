-- A board as Hermes leaves it after some weeks of use, written row by row
-- in the shapes hermes_cli/kanban_db.py writes (json.dumps payloads with
-- ", " and ": " separators, ensure_ascii=False). Assignees "Researcher",
-- " Writer" and "QA" date from a Hermes before assignees were normalised.
-- @ATTACHMENTS@ is replaced by the test with the board's attachments root.
INSERT INTO tasks (id, title, body, assignee, status, priority, created_by, created_at, started_at, completed_at,
    workspace_kind, workspace_path, tenant, result, consecutive_failures, current_run_id, skills, goal_mode)
VALUES ('t_0a1b2c3d', 'Collect the Q3 metrics', 'Pull the numbers from the warehouse.', 'Researcher', 'done', 2,
    'techlead', 1767225600, 1767225700, 1767229200, 'scratch', NULL, 'acme', 'Metrics in metrics.csv', 0, NULL,
    '["sql-analysis"]', 0);
INSERT INTO tasks (id, title, body, assignee, status, priority, created_by, created_at, workspace_kind, tenant)
VALUES ('t_1b2c3d4e', 'Draft the Q3 report', NULL, ' Writer', 'todo', 1, 'techlead', 1767225660, 'scratch', 'acme');
INSERT INTO tasks (id, title, assignee, status, priority, created_by, created_at, started_at, workspace_kind,
    workspace_path, branch_name, project_id, claim_lock, claim_expires, tenant, worker_pid, worker_started_at,
    last_heartbeat_at, current_run_id, model_override, provider_override, reasoning_effort, session_id)
VALUES ('t_2c3d4e5f', 'Scrape the competitor pages', 'researcher', 'running', 0, 'techlead', 1767225720, 1767229300,
    'worktree', '/srv/repos/site/.worktrees/t_2c3d4e5f', 'site/t_2c3d4e5f-scrape', 'proj_site', 'build-host:4242',
    4102444800, 'acme', 4243, 1767229300, 1767229400, 2, 'gpt-5.4', 'openrouter', 'high', '20260101_090000_deploy');
INSERT INTO tasks (id, title, assignee, status, created_by, created_at, workspace_kind, tenant, completion_contract)
VALUES ('t_3d4e5f6a', 'Review the onboarding flow', 'QA', 'review', 'techlead', 1767225780, 'scratch', NULL,
    '{"kind": "pr", "repo": "acme/site"}');
INSERT INTO tasks (id, title, assignee, status, created_by, created_at, completed_at, workspace_kind, tenant)
VALUES ('t_4e5f6a7b', 'Migrate the old wiki', 'ops', 'archived', 'techlead', 1760000000, 1760003600, 'scratch', 'legacy');
INSERT INTO tasks (id, title, assignee, status, created_by, created_at, workspace_kind, tenant, block_kind,
    block_recurrences, consecutive_failures, last_failure_error, max_retries)
VALUES ('t_5f6a7b8c', 'Rotate the deploy key', 'ops', 'blocked', 'techlead', 1767225840, 'scratch', '', 'needs_input',
    1, 1, 'ssh: permission denied (publickey)', 3);
INSERT INTO tasks (id, title, body, assignee, status, created_by, created_at, workspace_kind, goal_mode, goal_max_turns)
VALUES ('t_6a7b8c9d', 'Plan the Q4 offsite', 'Budget, venue, agenda — ça va être bien.', NULL, 'triage', 'techlead',
    1767225900, 'scratch', 1, 12);

INSERT INTO task_links (parent_id, child_id) VALUES ('t_0a1b2c3d', 't_1b2c3d4e');
INSERT INTO task_links (parent_id, child_id) VALUES ('t_2c3d4e5f', 't_1b2c3d4e');

INSERT INTO task_runs (id, task_id, profile, status, claim_lock, claim_expires, worker_pid, worker_started_at,
    started_at, ended_at, outcome, summary, metadata)
VALUES (1, 't_0a1b2c3d', 'Researcher', 'done', 'build-host:4100', NULL, 4101, 1767225700, 1767225700, 1767229200,
    'completed', 'Collected 14 metrics into metrics.csv.', '{"rows": 14, "worker_session_id": "20260101_090000_deploy"}');
INSERT INTO task_runs (id, task_id, profile, status, claim_lock, claim_expires, worker_pid, worker_started_at,
    last_heartbeat_at, started_at)
VALUES (2, 't_2c3d4e5f', 'researcher', 'running', 'build-host:4242', 4102444800, 4243, 1767229300, 1767229400, 1767229300);

INSERT INTO task_events (task_id, run_id, kind, payload, created_at) VALUES
    ('t_0a1b2c3d', NULL, 'created', '{"assignee": "Researcher", "status": "ready", "parents": [], "tenant": "acme", "skills": ["sql-analysis"]}', 1767225600),
    ('t_0a1b2c3d', 1, 'claimed', '{"lock": "build-host:4100", "expires": 1767226600, "run_id": 1}', 1767225700),
    ('t_0a1b2c3d', NULL, 'attached', '{"filename": "metrics.csv", "size": 31, "by": "agent"}', 1767229100),
    ('t_0a1b2c3d', 1, 'completed', '{"result_len": 22, "summary": "Collected 14 metrics into metrics.csv."}', 1767229200),
    ('t_1b2c3d4e', NULL, 'created', '{"assignee": " Writer", "status": "todo", "parents": ["t_0a1b2c3d", "t_2c3d4e5f"], "tenant": "acme"}', 1767225660),
    ('t_2c3d4e5f', NULL, 'created', '{"assignee": "researcher", "status": "ready", "parents": [], "creator_task_id": null, "tenant": "acme", "workspace_kind": "worktree", "workspace_path": "/srv/repos/site/.worktrees/t_2c3d4e5f", "branch_name": "site/t_2c3d4e5f-scrape", "project_id": "proj_site", "skills": null, "goal_mode": null, "model_override": "gpt-5.4", "provider_override": "openrouter"}', 1767225720),
    ('t_2c3d4e5f', 2, 'claimed', '{"lock": "build-host:4242", "expires": 4102444800, "run_id": 2}', 1767229300),
    ('t_3d4e5f6a', NULL, 'created', '{"assignee": "QA", "status": "ready", "parents": []}', 1767225780),
    ('t_4e5f6a7b', NULL, 'created', '{"assignee": "ops", "status": "ready", "parents": [], "tenant": "legacy"}', 1760000000),
    ('t_4e5f6a7b', NULL, 'archived', NULL, 1760007200),
    ('t_5f6a7b8c', NULL, 'created', '{"assignee": "ops", "status": "ready", "parents": [], "tenant": ""}', 1767225840),
    ('t_5f6a7b8c', NULL, 'blocked', '{"reason": "Need the new deploy key from the vault.", "kind": "needs_input"}', 1767226000),
    ('t_6a7b8c9d', NULL, 'created', '{"assignee": null, "status": "triage", "parents": [], "goal_mode": true}', 1767225900);

INSERT INTO task_comments (task_id, author, body, created_at) VALUES
    ('t_1b2c3d4e', 'techlead', 'Use the template in docs/report.md — merci!', 1767225670),
    ('t_2c3d4e5f', 'researcher', 'Three of five sites done.', 1767229400);

INSERT INTO task_attachments (task_id, filename, stored_path, content_type, size, uploaded_by, created_at) VALUES
    ('t_0a1b2c3d', 'metrics.csv', '@ATTACHMENTS@/t_0a1b2c3d/metrics.csv', 'text/csv', 31, 'agent', 1767229100),
    ('t_0a1b2c3d', 'metrics (1).csv', '@ATTACHMENTS@/t_0a1b2c3d/metrics (1).csv', NULL, 0, 'dashboard', 1767229150);

INSERT INTO kanban_notify_subs (task_id, platform, chat_id, thread_id, user_id, chat_type, notifier_profile,
    delivery_mode, delivery_metadata, created_at, last_event_id)
VALUES ('t_1b2c3d4e', 'telegram', '-100123', '', '42', 'group', 'default', 'notify+wake', '{"chat_type": "group"}', 1767225660, 5);

INSERT INTO recipe_instances (id, idempotency_key, recipe_id, schema_version, definition_digest, request_digest,
    definition_json, inputs_json, bindings_json, effective_plan_json, created_by, created_at)
VALUES ('ri_7c1d', 'quarterly-report-2026q3', 'quarterly-report', 1, 'sha256:9f2c', 'sha256:41aa',
    '{"nodes": ["collect", "draft"]}', '{"quarter": "Q3"}', '{}', '{"collect": "t_0a1b2c3d", "draft": "t_1b2c3d4e"}',
    'techlead', 1767225600);
INSERT INTO recipe_instance_tasks (instance_id, node_key, task_id) VALUES
    ('ri_7c1d', 'collect', 't_0a1b2c3d'),
    ('ri_7c1d', 'draft', 't_1b2c3d4e');
