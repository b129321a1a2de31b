// Package argschema checks tool arguments against the tool's advertised JSON
// Schema and explains a violation in words a model can act on: which
// argument, what was wrong, what is expected. The validator library's own
// messages name schema internals (locations, keyword paths), which a model
// tends to misread.
package argschema

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Schema is a compiled input schema.
type Schema struct {
	schema *jsonschema.Schema
}

// Compile compiles a JSON Schema document. The name only labels errors.
func Compile(name string, doc []byte) (*Schema, error) {
	parsed, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, fmt.Errorf("schema of %s is not JSON: %w", name, err)
	}
	c := jsonschema.NewCompiler()
	url := "mem:///" + name + ".json"
	if err := c.AddResource(url, parsed); err != nil {
		return nil, fmt.Errorf("schema of %s: %w", name, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("schema of %s does not compile: %w", name, err)
	}
	return &Schema{schema: s}, nil
}

// Validate checks a JSON arguments document. The returned error, when
// non-nil, is a *Error.
func (s *Schema) Validate(args []byte) error {
	if len(bytes.TrimSpace(args)) == 0 {
		args = []byte("{}")
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return &Error{Problems: []string{"arguments are not valid JSON: " + err.Error()}}
	}
	err = s.schema.Validate(inst)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return &Error{Problems: []string{err.Error()}}
	}
	var problems []string
	collect(ve, &problems)
	slices.Sort(problems)
	problems = slices.Compact(problems)
	return &Error{Problems: problems}
}

// Error lists every problem found in the arguments.
type Error struct {
	Problems []string
}

func (e *Error) Error() string {
	return strings.Join(e.Problems, "; ")
}

var printer = message.NewPrinter(language.English)

// collect gathers the leaves of the validation error tree: the inner nodes
// only say "a subschema failed", the leaves say why.
func collect(ve *jsonschema.ValidationError, out *[]string) {
	if len(ve.Causes) > 0 {
		for _, c := range ve.Causes {
			collect(c, out)
		}
		return
	}
	*out = append(*out, describe(ve))
}

func describe(ve *jsonschema.ValidationError) string {
	where := argumentName(ve.InstanceLocation)
	switch k := ve.ErrorKind.(type) {
	case *kind.Required:
		// The validator reports these from a map; sort them so the same
		// mistake always reads the same.
		missing := slices.Sorted(slices.Values(k.Missing))
		names := make([]string, len(missing))
		for i, m := range missing {
			names[i] = quote(joinPath(ve.InstanceLocation, m))
		}
		noun := "argument"
		if len(names) > 1 {
			noun = "arguments"
		}
		return fmt.Sprintf("missing required %s %s", noun, strings.Join(names, ", "))
	case *kind.AdditionalProperties:
		props := slices.Sorted(slices.Values(k.Properties))
		names := make([]string, len(props))
		for i, p := range props {
			names[i] = quote(joinPath(ve.InstanceLocation, p))
		}
		noun := "argument"
		if len(names) > 1 {
			noun = "arguments"
		}
		return fmt.Sprintf("unknown %s %s (not in the tool's schema)", noun, strings.Join(names, ", "))
	case *kind.Type:
		if where == "" {
			return fmt.Sprintf("arguments must be a JSON %s, got %s", strings.Join(k.Want, " or "), k.Got)
		}
		return fmt.Sprintf("argument %s must be %s, got %s", quote(where), article(strings.Join(k.Want, " or ")), k.Got)
	default:
		msg := ve.ErrorKind.LocalizedString(printer)
		if where == "" {
			return "arguments: " + msg
		}
		return fmt.Sprintf("argument %s: %s", quote(where), msg)
	}
}

func argumentName(loc []string) string { return strings.Join(loc, ".") }

func joinPath(loc []string, name string) string {
	if len(loc) == 0 {
		return name
	}
	return strings.Join(loc, ".") + "." + name
}

func quote(s string) string { return `"` + s + `"` }

func article(typ string) string {
	switch typ[0] {
	case 'a', 'e', 'i', 'o', 'u':
		return "an " + typ
	}
	return "a " + typ
}
