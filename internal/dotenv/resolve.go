package dotenv

import "regexp"

// reference is python-dotenv's ${NAME} or ${NAME:-default}: any name
// without } or :, and a default without }.
var reference = regexp.MustCompile(`\$\{([^}:]*)(?::-([^}]*))?\}`)

// Var is a key after interpolation.
type Var struct {
	Key   string
	Value string
	// Set is false for a key named without `=`: it sets nothing.
	Set bool
}

// Resolve expands references in the bindings as load_dotenv(override=True)
// does and returns one Var per key, in the order keys first appear, with
// the last statement for a key winning. A reference is looked up among the
// file's earlier keys first, then in lookup (the process environment);
// a key named without `=` hides the environment's value there, as
// python-dotenv's None does.
func Resolve(bindings []Binding, lookup func(string) (string, bool)) []Var {
	var out []Var
	index := map[string]int{}
	get := func(name string) (string, bool) {
		if i, ok := index[name]; ok {
			return out[i].Value, true // "" for a key without a value
		}
		return lookup(name)
	}
	for _, b := range bindings {
		v := Var{Key: b.Key, Set: b.HasValue}
		if b.HasValue {
			v.Value = reference.ReplaceAllStringFunc(b.Value, func(ref string) string {
				m := reference.FindStringSubmatch(ref)
				if val, ok := get(m[1]); ok {
					return val
				}
				return m[2]
			})
		}
		if i, ok := index[b.Key]; ok {
			out[i] = v
			continue
		}
		index[b.Key] = len(out)
		out = append(out, v)
	}
	return out
}
