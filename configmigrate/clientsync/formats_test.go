package clientsync

import "fmt"

// entryClients are the clients whose entries are edited one by one: every
// row but those whose Hermes entries are one section (codex).
func entryClients() []Client {
	var out []Client
	for _, c := range Clients() {
		if dialects[c].section == nil {
			out = append(out, c)
		}
	}
	return out
}

// jsonClients are the clients whose files are JSON or JSONC, which the
// JSON document generator and fuzzers exercise.
func jsonClients() []Client {
	var out []Client
	for _, c := range Clients() {
		if f := dialects[c].format; f == "JSON" || f == "JSONC" {
			out = append(out, c)
		}
	}
	return out
}

// userDoc is a small user config of c's format holding one server of the
// user's, name, that starts command.
func userDoc(c Client, name, command string) string {
	d := dialects[c]
	switch d.format {
	case formatYAML:
		return fmt.Sprintf("%s:\n  %s:\n    name: %s\n    cmd: %s\n", d.rootKey, name, name, command)
	case formatTOML:
		return fmt.Sprintf("[%s.%s]\ncommand = %q\n", d.rootKey, name, command)
	}
	return fmt.Sprintf("{\n  %q: {\n    %q: {\"command\": %q}\n  }\n}\n", d.rootKey, name, command)
}
