package imagegen

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestFALCatalog(t *testing.T) {
	if len(falModels) != 21 {
		t.Errorf("%d models; the original's catalog v2026.9.7 has 21", len(falModels))
	}
	for id, m := range falModels {
		if len(m.sizes) != 3 || (m.sizeKey != "image_size" && m.sizeKey != "aspect_ratio") || !slices.Contains(m.supports, "prompt") || !slices.Contains(m.supports, m.sizeKey) {
			t.Errorf("%s: size convention or supports broken", id)
		}
		if (m.editEndpoint == "") != (m.maxRefs == 0) || (m.editEndpoint != "" && !slices.Contains(m.editSupports, "image_urls")) {
			t.Errorf("%s: edit fields inconsistent", id)
		}
	}
	ep, p := falRequest(falModels["fal-ai/flux-2/klein/9b"], "fal-ai/flux-2/klein/9b", " cat ", "square", []string{"data:a", "data:b"})
	b, _ := json.Marshal(p)
	if ep != "fal-ai/flux-2/klein/9b/edit" || string(b) != `{"num_inference_steps":4,"output_format":"png","enable_safety_checker":false,"prompt":"cat","image_urls":["data:a","data:b"]}` {
		t.Errorf("klein edit: %s %s", ep, b)
	}
	_, p = falRequest(falModels["bytedance/seedream/v5/pro/text-to-image"], "", "x", "bogus", nil)
	if b, _ := json.Marshal(p); string(b) != `{"num_images":1,"output_format":"png","enable_safety_checker":false,"prompt":"x","image_size":{"width":2048,"height":1152}}` {
		t.Errorf("seedream: %s", b)
	}
	_, p = falRequest(falModels["fal-ai/ideogram/v3"], "", "x", "square", []string{"a", "b"})
	if b, _ := json.Marshal(p); string(b) != `{"rendering_speed":"BALANCED","expand_prompt":true,"style":"AUTO","prompt":"x","image_urls":["a"]}` {
		t.Errorf("ideogram edit clamps to one reference: %s", b)
	}
}
