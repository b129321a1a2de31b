package clientsync

import (
	"fmt"
	"strings"
)

// Info is one row of the client table, for people and for hermes-migrate
// list: where the client's files are and how its entries are spelled.
type Info struct {
	Client  Client   `json:"client"`
	Display string   `json:"display"`
	Aliases []string `json:"aliases,omitempty"`
	// Format is JSON or JSONC.
	Format string `json:"format"`
	// ServersKey is the top-level key holding the servers.
	ServersKey string `json:"servers_key"`
	// Project is the project-level file relative to the project root,
	// empty when the client reads none.
	Project string `json:"project,omitempty"`
	// EnvSyntax is how the client spells an environment reference, empty
	// when it expands none.
	EnvSyntax string `json:"env_syntax,omitempty"`
	// Source names where the row's facts come from.
	Source string `json:"source"`
}

// Describe returns c's row of the client table.
func Describe(c Client) (Info, error) {
	d, err := dialectFor(c)
	if err != nil {
		return Info{}, err
	}
	return Info{
		Client: c, Display: d.display, Aliases: d.aliases, Format: d.format,
		ServersKey: d.rootKey, Project: d.project, EnvSyntax: d.refSyntax, Source: d.source,
	}, nil
}

// MarkdownClientTable renders the client table for the README, with the
// user-level path on each OS. extra rows (codex, handled by configmigrate)
// come first.
func MarkdownClientTable(extra ...string) string {
	var b strings.Builder
	b.WriteString("\n| client (`--client`) | user file: Linux · macOS · Windows | project file (`--project`) | format | servers key | env reference |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
	for _, row := range extra {
		b.WriteString(row + "\n")
	}
	envs := []Env{
		{GOOS: "linux", Home: "/H"},
		{GOOS: "darwin", Home: "/H"},
		{GOOS: "windows", Home: `H:\`, AppData: `A:\`},
	}
	people := strings.NewReplacer("/H/", "~/", `H:\`, `%USERPROFILE%\`, `A:\`, `%APPDATA%\`, "/X/", "$XDG_CONFIG_HOME/")
	for _, c := range Clients() {
		d := dialects[c]
		var paths []string
		for _, env := range envs {
			if env.GOOS == "linux" {
				env.XDGConfigHome = "/X"
			}
			p, err := d.user(pathEnv{Env: env, win: env.GOOS == "windows"})
			if err != nil {
				p = "–"
			}
			paths = append(paths, "`"+people.Replace(p)+"`")
		}
		if paths[0] == paths[1] && strings.HasPrefix(paths[0], "`~") {
			paths = paths[:1]
			paths[0] += " (all)"
		}
		// A client's own home variable moves its file.
		var moved string
		probe := pathEnv{Env: Env{GOOS: "linux", Home: "/H", Getenv: func(k string) string { moved = k; return "/V" }}}
		if p, _ := d.user(probe); strings.HasPrefix(p, "/V/") {
			paths[len(paths)-1] += fmt.Sprintf("; `$%s` moves it", moved)
		}
		name := "`" + string(c) + "`"
		if len(d.aliases) > 0 {
			name += " (" + strings.Join(d.aliases, ", ") + ")"
		}
		project := "–"
		if d.project != "" {
			project = "`" + d.project + "`"
		}
		env := "none: secrets left for you to fill in"
		if d.refSyntax != "" {
			env = "`" + d.refSyntax + "`"
		}
		fmt.Fprintf(&b, "| %s %s | %s | %s | %s | `%s` | %s |\n", d.display, name, strings.Join(paths, " · "), project, d.format, d.rootKey, env)
	}
	return b.String()
}
