package main

import (
	"context"
	"errors"

	"github.com/hermes-go/hermes/configmigrate"
)

// jsonClientNames lists the JSON-configured clients.
func jsonClientNames() []string { return nil }

func migrateJSONClient(client string, o options, d deps) (clientReport, error) {
	return clientReport{Client: client}, errors.New("not supported yet")
}

func discoverPlugins(ctx context.Context, codexHome string) ([]configmigrate.Plugin, error) {
	return nil, errors.New("plugin discovery is not available in this build")
}
