package clientsync

import (
	"github.com/hermes-go/hermes/configmigrate"
)

type configServer = configmigrate.Server

func lit(s string) configmigrate.Value { return configmigrate.Value{Literal: s} }

func kv(k string, v configmigrate.Value) configmigrate.KeyValue {
	return configmigrate.KeyValue{Key: k, Value: v}
}

// toolsServer is the entry every sync writes, built the way the CLI
// builds it.
var toolsServer = configmigrate.HermesToolsServer(configmigrate.HermesToolsOptions{
	Command:    "/opt/hermes/bin/hermes-tools-mcp",
	HermesHome: "/home/u/.hermes",
	EnvVars:    []string{"HERMES_KANBAN_TASK", "FAL_KEY", "BROWSER_CDP_URL"},
})

// fixtureServers are the servers golden cases refer to by name.
var fixtureServers = map[string]configServer{
	configmigrate.HermesToolsName: toolsServer,
	// A stdio server with a secret by reference, a pass-through
	// variable and a working directory.
	"github": {
		Name:    "github",
		Command: "npx",
		Args:    []string{"-y", "@modelcontextprotocol/server-github"},
		Env: []configmigrate.KeyValue{
			kv("GITHUB_PERSONAL_ACCESS_TOKEN", configmigrate.Value{Ref: "GITHUB_TOKEN"}),
			kv("LOG_LEVEL", lit("info")),
		},
		EnvVars: []string{"HTTPS_PROXY"},
		Cwd:     "/srv/github",
	},
	// Streamable HTTP with a prefixed reference in a header.
	"linear": {
		Name:    "linear",
		URL:     "https://mcp.linear.app/mcp",
		Headers: []configmigrate.KeyValue{kv("Authorization", configmigrate.ParseValue("Bearer ${LINEAR_TOKEN}"))},
	},
	// Legacy SSE.
	"legacy": {
		Name: "legacy",
		URL:  "http://127.0.0.1:9000/sse",
		SSE:  true,
	},
	"off": {
		Name:     "off",
		Command:  "/usr/bin/off-mcp",
		Disabled: true,
	},
}
