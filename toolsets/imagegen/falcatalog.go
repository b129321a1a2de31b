package imagegen

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// The original's FAL model table (tools/image_generation_catalog.py,
// catalog v2026.9.7): each model's size convention, its defaults in the
// order it sends them, the arguments its text-to-image and edit
// endpoints accept, and its edit endpoint. Only keys a model accepts are
// ever sent.

// kv is one payload entry; payloads keep the original's key order.
type kv struct {
	k string
	v any
}

// payload is a JSON object that keeps its keys in insertion order.
type payload []kv

func (p payload) set(k string, v any) payload {
	for i := range p {
		if p[i].k == k {
			p[i].v = v
			return p
		}
	}
	return append(p, kv{k, v})
}

func (p payload) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, e := range p {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(e.k)
		v, err := json.Marshal(e.v)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

type falModel struct {
	// sizeKey is "image_size" or "aspect_ratio"; sizes maps landscape,
	// square and portrait to its value.
	sizeKey      string
	sizes        map[string]any
	defaults     payload
	supports     []string
	editEndpoint string
	editSupports []string
	maxRefs      int
}

var (
	falPreset  = map[string]any{"landscape": "landscape_16_9", "square": "square_hd", "portrait": "portrait_16_9"}
	falAspect  = map[string]any{"landscape": "16:9", "square": "1:1", "portrait": "9:16"}
	falLiteral = map[string]any{"landscape": "1536x1024", "square": "1024x1024", "portrait": "1024x1536"}
)

func words(s string) []string { return strings.Fields(s) }

func without(list []string, drop string) []string {
	return slices.DeleteFunc(slices.Clone(list), func(s string) bool { return s == drop })
}

var falModels = func() map[string]falModel {
	png, one, noSafety := kv{"output_format", "png"}, kv{"num_images", 1}, kv{"enable_safety_checker", false}
	flux2pro := words("prompt image_size num_inference_steps guidance_scale num_images output_format enable_safety_checker safety_tolerance sync_mode seed")
	nbPro := words("prompt aspect_ratio num_images output_format safety_tolerance seed sync_mode resolution enable_web_search limit_generations")
	nb2 := append(slices.Clone(nbPro), "system_prompt", "thinking_level")
	qwen := words("prompt image_size num_inference_steps guidance_scale num_images output_format acceleration seed sync_mode")
	seedPro := words("prompt image_size num_images output_format sync_mode enable_safety_checker")
	qwen3 := words("prompt negative_prompt image_size num_images seed sync_mode output_format enable_prompt_expansion enable_safety_checker")
	krea := words("prompt aspect_ratio creativity seed image_style_references")
	recraft := words("prompt image_size enable_safety_checker colors background_color")
	withImages := func(list []string) []string {
		return append([]string{"prompt", "image_urls"}, without(without(list, "prompt"), "image_size")...)
	}
	return map[string]falModel{
		"fal-ai/flux-2/klein/9b": {"image_size", falPreset, payload{{"num_inference_steps", 4}, png, noSafety},
			words("prompt image_size num_inference_steps seed output_format enable_safety_checker"),
			"fal-ai/flux-2/klein/9b/edit", words("prompt image_urls num_inference_steps seed output_format enable_safety_checker"), 9},
		"fal-ai/flux-2-pro": {"image_size", falPreset,
			payload{{"num_inference_steps", 50}, {"guidance_scale", 4.5}, one, png, noSafety, {"safety_tolerance", "5"}, {"sync_mode", true}},
			flux2pro, "fal-ai/flux-2-pro/edit", withImages(flux2pro), 9},
		"fal-ai/z-image/turbo": {"image_size", falPreset,
			payload{{"num_inference_steps", 8}, one, png, noSafety, {"enable_prompt_expansion", false}},
			words("prompt image_size num_inference_steps num_images seed output_format enable_safety_checker enable_prompt_expansion"), "", nil, 0},
		"fal-ai/nano-banana-pro": {"aspect_ratio", falAspect, payload{one, png, {"safety_tolerance", "5"}, {"resolution", "1K"}},
			nbPro, "fal-ai/nano-banana-pro/edit", withImages(nbPro), 2},
		"fal-ai/nano-banana-2": {"aspect_ratio", falAspect,
			payload{one, png, {"safety_tolerance", "4"}, {"resolution", "1K"}, {"limit_generations", true}},
			nb2, "fal-ai/nano-banana-2/edit", withImages(nb2), 14},
		"fal-ai/gpt-image-1.5": {"image_size", falLiteral, payload{{"quality", "medium"}, one, png},
			words("prompt image_size quality num_images output_format background sync_mode"),
			"fal-ai/gpt-image-1.5/edit", words("prompt image_urls image_size quality num_images output_format sync_mode"), 16},
		"fal-ai/gpt-image-2": {"image_size", map[string]any{"landscape": "landscape_4_3", "square": "square_hd", "portrait": "portrait_4_3"},
			payload{{"quality", "medium"}, one, png}, words("prompt image_size quality num_images output_format sync_mode"),
			"openai/gpt-image-2/edit", words("prompt image_urls quality num_images output_format sync_mode mask_image_url"), 16},
		"fal-ai/ideogram/v3": {"image_size", falPreset,
			payload{{"rendering_speed", "BALANCED"}, {"expand_prompt", true}, {"style", "AUTO"}},
			words("prompt image_size rendering_speed expand_prompt style seed"),
			"fal-ai/ideogram/v3/edit", words("prompt image_urls rendering_speed expand_prompt style seed"), 1},
		"fal-ai/recraft/v4/pro/text-to-image": {"image_size", falPreset, payload{noSafety}, recraft, "", nil, 0},
		"fal-ai/qwen-image": {"image_size", falPreset,
			payload{{"num_inference_steps", 30}, {"guidance_scale", 2.5}, one, png, {"acceleration", "regular"}},
			qwen, "fal-ai/qwen-image-2/pro/edit", withImages(qwen), 3},
		"fal-ai/krea/v2/medium/text-to-image": {"aspect_ratio", falAspect, payload{{"creativity", "medium"}}, krea, "", nil, 0},
		"fal-ai/krea/v2/large/text-to-image":  {"aspect_ratio", falAspect, payload{{"creativity", "medium"}}, krea, "", nil, 0},
		"bytedance/seedream/v5/pro/text-to-image": {"image_size", map[string]any{
			"landscape": payload{{"width", 2048}, {"height", 1152}}, "square": payload{{"width", 1536}, {"height", 1536}},
			"portrait": payload{{"width", 1152}, {"height", 2048}}},
			payload{one, png, noSafety}, seedPro, "bytedance/seedream/v5/pro/edit",
			append([]string{"prompt", "image_urls"}, without(seedPro, "prompt")...), 10},
		"bytedance/seedream/v5/lite/text-to-image": {"image_size", falPreset, payload{one, noSafety},
			words("prompt image_size num_images max_images sync_mode enable_safety_checker"), "", nil, 0},
		"ideogram/v4/instant": {"image_size", falPreset, payload{{"expansion_model", "Medium"}, png, noSafety},
			words("prompt image_size expansion_model num_images seed sync_mode enable_safety_checker output_format"), "", nil, 0},
		"ideogram/v4/fast": {"image_size", falPreset, payload{{"expansion_model", "Medium"}, {"rendering_speed", "BALANCED"}},
			words("prompt image_size expansion_model rendering_speed num_images seed sync_mode"), "", nil, 0},
		"alibaba/qwen-image-3/text-to-image": {"image_size", falPreset,
			payload{one, png, {"enable_prompt_expansion", false}, noSafety}, qwen3, "alibaba/qwen-image-3/edit", withImages(qwen3), 3},
		"microsoft/mai-image-2.5-pro": {"aspect_ratio", falAspect, payload{one, png},
			words("prompt aspect_ratio num_images output_format sync_mode"), "", nil, 0},
		"google/nano-banana-2-lite": {"aspect_ratio", falAspect, payload{one, png, {"safety_tolerance", "5"}},
			words("prompt aspect_ratio num_images seed output_format safety_tolerance sync_mode system_prompt limit_generations thinking_level"),
			"google/nano-banana-2-lite/edit", words("prompt image_urls aspect_ratio num_images seed output_format safety_tolerance sync_mode system_prompt"), 4},
		"fal-ai/recraft/v4.1/text-to-image": {"image_size", falPreset, payload{noSafety}, recraft, "", nil, 0},
		"xai/grok-imagine-image/v2.0/text-to-image": {"aspect_ratio", falAspect,
			payload{one, png, {"resolution", "1k"}, {"quality", "medium"}},
			words("prompt aspect_ratio num_images output_format resolution quality sync_mode"),
			"xai/grok-imagine-image/v2.0/edit", words("prompt image_urls num_images output_format resolution quality sync_mode"), 3},
	}
}()

// falRequest is the endpoint and body for one call: text-to-image, or
// the model's edit endpoint when there are source images (data: URLs).
func falRequest(m falModel, model, prompt, aspect string, images []string) (string, payload) {
	if _, ok := m.sizes[aspect]; !ok {
		aspect = "landscape"
	}
	p := slices.Clone(m.defaults)
	p = p.set("prompt", strings.TrimSpace(prompt))
	p = p.set(m.sizeKey, m.sizes[aspect])
	endpoint, allowed := model, m.supports
	if len(images) > 0 {
		endpoint, allowed = m.editEndpoint, m.editSupports
		if len(images) > m.maxRefs {
			images = images[:m.maxRefs]
		}
		p = p.set("image_urls", images)
	}
	return endpoint, slices.DeleteFunc(p, func(e kv) bool { return !slices.Contains(allowed, e.k) })
}
