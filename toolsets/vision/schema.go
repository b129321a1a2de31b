package vision

const description = "Analyze an image with a vision model and answer a question about it. The image can " +
	"be an http(s) URL, an absolute local file path, or a data URL (data:image/png;base64,...). PNG, JPEG, GIF " +
	"and WebP are supported. Returns a full description of the image followed by the answer to your question."

const inputSchema = `{
  "type": "object",
  "properties": {
    "image_url": {
      "type": "string", "maxLength": 8192,
      "description": "Image URL (http/https), absolute local file path, or data URL to analyze."
    },
    "question": {
      "type": "string", "maxLength": 100000,
      "description": "Your specific question or request about the image. The image is always fully described first."
    },
    "region": {
      "type": "array", "items": {"type": "integer"}, "minItems": 4, "maxItems": 4,
      "description": "Optional [x1, y1, x2, y2] crop in ORIGINAL-image pixel coordinates, applied before any downscaling — the crop keeps full resolution. Load the full image first, then re-call with a region to zoom into small text or fine detail."
    }
  },
  "required": ["image_url", "question"]
}`

const outputSchema = `{
  "type": "object",
  "properties": {
    "success": {"const": true},
    "analysis": {"type": "string"},
    "scale_note": {"type": "string"}
  },
  "required": ["success", "analysis"]
}`
