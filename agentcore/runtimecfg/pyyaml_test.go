package runtimecfg

import "testing"

// An aliased model mapping is read as the mapping, as PyYAML reads it.
func TestAliasedModelIsTheMapping(t *testing.T) {
	doc := []byte("providers:\n  openai: &openai\n    provider: openai\n    default: gpt-5.5\n    openai_runtime: codex_app_server\nmodel: *openai\n")
	m, err := LoadModel(doc)
	if err != nil {
		t.Fatal(err)
	}
	if m.Default != "gpt-5.5" || m.Provider != "openai" || Normalize(m.OpenAIRuntime) != CodexAppServer {
		t.Errorf("LoadModel = %+v, want the anchored mapping", m)
	}
}

// `on` on a flow-style model mapping edits the mapping and no other byte.
func TestFlowModelEditedInPlace(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{
			"# top  comment\n\nmodel: {provider: openai, default: x}   # keep  me\n\n\nagent:\n  max_turns: 5    # spaced\n",
			"# top  comment\n\nmodel: {provider: openai, default: x, openai_runtime: codex_app_server}   # keep  me\n\n\nagent:\n  max_turns: 5    # spaced\n",
		},
		{
			"a: 1\n\nmodel: { provider: openai, default: 'x}y' }\n\nb:   2\n",
			"a: 1\n\nmodel: { provider: openai, default: 'x}y', openai_runtime: codex_app_server }\n\nb:   2\n",
		},
		{
			"model: {default: x, openai_runtime: auto}\n\n# end\n",
			"model: {default: x, openai_runtime: codex_app_server}\n\n# end\n",
		},
		{"model: {}\n\nz:  1\n", "model: {openai_runtime: codex_app_server}\n\nz:  1\n"},
	} {
		got, err := SetRuntime([]byte(tt.in), CodexAppServer)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tt.want {
			t.Errorf("SetRuntime(%q) =\n%q\nwant\n%q", tt.in, got, tt.want)
		}
		if m, err := LoadModel(got); err != nil || Normalize(m.OpenAIRuntime) != CodexAppServer {
			t.Errorf("edited file reads back as %+v, %v", m, err)
		}
	}
}
