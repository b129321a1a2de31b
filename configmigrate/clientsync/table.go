package clientsync

import (
	"fmt"
	"slices"
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
// user-level path on each OS.
func MarkdownClientTable() string {
	var b strings.Builder
	b.WriteString("\n| client (`--client`) | user file: Linux · macOS · Windows | project file (`--project`) | format | servers key | env reference |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
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
		// A client's own variables move its file: each one the row
		// reads that, set alone, puts the file under it (in the order
		// the row reads them, which is the client's precedence).
		var read []string
		_, _ = d.user(pathEnv{Env: Env{GOOS: "linux", Home: "/H", Getenv: func(k string) string {
			if !slices.Contains(read, k) {
				read = append(read, k)
			}
			return ""
		}}})
		var movers []string
		for _, k := range read {
			probe := pathEnv{Env: Env{GOOS: "linux", Home: "/H", Getenv: func(q string) string {
				if q == k {
					return "/V"
				}
				return ""
			}}}
			if p, _ := d.user(probe); p == "/V" || strings.HasPrefix(p, "/V/") {
				movers = append(movers, "`$"+k+"`")
			}
		}
		switch len(movers) {
		case 0:
		case 1:
			paths[len(paths)-1] += "; " + movers[0] + " moves it"
		default:
			paths[len(paths)-1] += "; " + strings.Join(movers[:len(movers)-1], ", ") + " or " + movers[len(movers)-1] + " moves it"
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
		switch {
		case d.envNote != "":
			env = d.envNote
		case d.refSyntax != "":
			env = "`" + d.refSyntax + "`"
		case d.inheritsEnv:
			env = "none, but a server gets the client's environment: a variable of the same name needs no entry; other secrets left for you to fill in"
		}
		if d.bearerKey != "" {
			env += "; `Authorization: Bearer ${VAR}` becomes `" + d.bearerKey + ": VAR`"
		}
		format := d.format
		if d.section != nil {
			format += " (managed block)"
		}
		fmt.Fprintf(&b, "| %s %s | %s | %s | %s | `%s` | %s |\n", d.display, name, strings.Join(paths, " · "), project, format, d.rootKey, env)
	}
	return b.String()
}
