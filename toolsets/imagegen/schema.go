package imagegen

const description = "Generate an image from a text prompt with the image model the user configured " +
	"(OpenAI-compatible images API or FAL), or edit / transform an existing image by passing image_url " +
	"(OpenAI, or a FAL model with an edit endpoint). The image is saved under the Hermes home; the result gives its " +
	"absolute path in `image` and shows the image itself. Describe subject, style, composition and lighting " +
	"in the prompt."

const inputSchema = `{
  "type": "object",
  "properties": {
    "prompt": {
      "type": "string", "maxLength": 100000,
      "description": "The text prompt describing the desired image. Be detailed and descriptive."
    },
    "aspect_ratio": {
      "type": "string",
      "enum": ["landscape", "square", "portrait"],
      "description": "The aspect ratio of the generated image. 'landscape' is 16:9 wide, 'portrait' is 16:9 tall, 'square' is 1:1.",
      "default": "landscape"
    },
    "image_url": {
      "type": "string", "maxLength": 8192,
      "description": "Source image to edit/transform (image-to-image). A public URL, a data: URL, or an absolute path of an image under the Hermes home's cache (one these tools saved). Omit for text-to-image."
    },
    "reference_image_urls": {
      "type": "array",
      "items": {"type": "string", "maxLength": 8192},
      "maxItems": 15,
      "description": "Up to 15 additional reference images (style, character, or composition) guiding an edit. URLs, data: URLs or paths under the Hermes home's cache."
    },
    "upscale": {
      "type": "boolean",
      "description": "Post-generation high-resolution pass (~2x, extra cost/latency), off by default. A creative enhancer that can alter fine detail (rendered text, faces) — use only when resolution matters more than fidelity. FAL only; other providers ignore it."
    }
  },
  "required": ["prompt"]
}`

const outputSchema = `{
  "type": "object",
  "properties": {
    "success": {"const": true},
    "image": {"type": "string"},
    "model": {"type": "string"},
    "prompt": {"type": "string"},
    "aspect_ratio": {"type": "string"},
    "provider": {"type": "string"},
    "modality": {"enum": ["text", "image"]},
    "upscaled": {"type": "boolean"},
    "note": {"type": "string"}
  },
  "required": ["success", "image", "model", "prompt", "aspect_ratio", "provider"]
}`
