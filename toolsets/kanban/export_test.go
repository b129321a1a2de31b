package kanban

// WorkerArgRule exposes the worker rule table to the external tests: the
// scope a worker may name for a tool's argument ("own", "mine", "created",
// "related", "board", or "" when the argument names no task), whether the
// tool is orchestrator-only, and whether the table classifies the argument
// at all.
func WorkerArgRule(tool, arg string) (scopeName string, orchestratorOnly, known bool) {
	rule, ok := workerRules()[tool]
	if !ok {
		return "", false, false
	}
	kind, ok := rule.args[arg]
	if !ok {
		return "", rule.orchestratorOnly, false
	}
	switch kind {
	case notATask:
		return "", rule.orchestratorOnly, true
	case accessBoard:
		return "board", rule.orchestratorOnly, true
	}
	names := map[scope]string{scopeOwn: "own", scopeMine: "mine", scopeCreated: "created", scopeRelated: "related"}
	return names[kind.rule().scope], rule.orchestratorOnly, true
}

// WorkerRuleTools lists the tools the rule table covers.
func WorkerRuleTools() []string {
	var out []string
	for name := range workerRules() {
		out = append(out, name)
	}
	return out
}

// PyB64Decode exposes Python's strict base64 decoding to the tests.
var PyB64Decode = pyB64Decode

// SafeAttachmentName exposes Hermes' attachment name rule to the tests.
var SafeAttachmentName = safeAttachmentName
