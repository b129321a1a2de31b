package imagegen

const description = "Generate an image from a text prompt with the image model the user configured " +
	"(OpenAI-compatible images API or FAL). The image is saved under the Hermes home; the result gives its " +
	"absolute path in `image` and shows the image itself. Describe subject, style, composition and lighting " +
	"in the prompt."

const inputSchema = `{
  "type": "object",
  "properties": {
    "prompt": {
      "type": "string",
      "description": "The text prompt describing the desired image. Be detailed and descriptive."
    },
    "aspect_ratio": {
      "type": "string",
      "enum": ["landscape", "square", "portrait"],
      "description": "The aspect ratio of the generated image. 'landscape' is 16:9 wide, 'portrait' is 16:9 tall, 'square' is 1:1.",
      "default": "landscape"
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
    "provider": {"type": "string"}
  },
  "required": ["success", "image", "model", "prompt", "aspect_ratio", "provider"]
}`
