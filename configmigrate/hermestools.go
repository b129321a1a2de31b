package configmigrate

import "slices"

// HermesToolsName is the name codex and Hermes know the callback server by.
const HermesToolsName = "hermes-tools"

// HermesToolsOptions describe the hermes-tools callback entry.
type HermesToolsOptions struct {
	// Command is the absolute path of the hermes-tools-mcp binary.
	Command string
	Args    []string
	// HermesHome is passed as HERMES_HOME when non-empty (the user set
	// one); otherwise the server finds ~/.hermes itself.
	HermesHome string
	// EnvVars are the variables the tools read (kanban task variables,
	// backend API keys). Codex does not forward its environment to MCP
	// servers, so each must be named; only names are written, never values.
	EnvVars []string
	// Approve makes codex run hermes-tools' tools without asking first.
	// Without it codex decides per tool from the tools' annotations.
	Approve bool
}

// HermesToolsServer returns the callback entry.
func HermesToolsServer(o HermesToolsOptions) Server {
	s := Server{
		Name:    HermesToolsName,
		Command: o.Command,
		Args:    o.Args,
		// Startup is milliseconds; the generous limit covers a cold disk.
		StartupTimeoutSec: 30,
		// Web extraction and image generation can take minutes.
		ToolTimeoutSec: 600,
		ApproveTools:   o.Approve,
	}
	if o.HermesHome != "" {
		s.Env = append(s.Env, KeyValue{Key: "HERMES_HOME", Value: Value{Literal: o.HermesHome}})
	}
	vars := slices.Clone(o.EnvVars)
	slices.Sort(vars)
	s.EnvVars = slices.Compact(slices.DeleteFunc(vars, func(v string) bool { return v == "" || v == "HERMES_HOME" && o.HermesHome != "" }))
	return s
}
