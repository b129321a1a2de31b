package videogen

// The original's schemas (tools/video_generation_tool.py and the xAI
// plugin), as the xAI backend advertises them: no model argument on
// video_generate, the model is configuration.

const generateDescription = "Generate a short video from a text prompt, or animate a still image by passing " +
	"image_url (image-to-video). Returns the result in the `video` field — a URL; reference it in your " +
	"response. The backend and model are user-configured (video_gen in config.yaml), not model-selected."

const generateSchema = `{
  "type": "object",
  "properties": {
    "prompt": {"type": "string", "maxLength": 100000, "description": "Text description of the video to generate: subject, action, camera movement, style."},
    "duration": {"type": "integer", "minimum": 1, "maximum": 15, "description": "Video length in seconds (1-15; at most 10 with reference images). Default 8."},
    "aspect_ratio": {"type": "string", "enum": ["16:9", "9:16", "1:1", "4:3", "3:4", "3:2", "2:3"], "default": "16:9", "description": "Aspect ratio of the video."},
    "resolution": {"type": "string", "enum": ["480p", "720p"], "default": "720p", "description": "Output resolution."},
    "image_url": {"type": "string", "maxLength": 8192, "description": "Public HTTPS URL of a still image to animate (image-to-video). Omit for text-to-video."},
    "reference_image_urls": {"type": "array", "items": {"type": "string", "maxLength": 8192}, "maxItems": 7, "description": "Up to 7 public HTTPS URLs of reference images (style, character) guiding the video."}
  },
  "required": ["prompt"]
}`

const editDescription = "Edit a video generated earlier with xAI Imagine: describe the change in prompt and pass " +
	"the public HTTPS MP4 URL of that earlier result in video_url. Returns the edited video's URL in `video`."

const editSchema = `{
  "type": "object",
  "properties": {
    "prompt": {"type": "string", "maxLength": 100000, "description": "The edit to make."},
    "video_url": {"type": "string", "maxLength": 8192, "description": "Public HTTPS URL of the MP4 from a prior xAI Imagine result."},
    "model": {"type": "string", "maxLength": 8192, "description": "Optional xAI video model id; defaults to the configured one."}
  },
  "required": ["prompt", "video_url"]
}`

const extendDescription = "Extend a video generated earlier with xAI Imagine: describe what happens next in prompt " +
	"and pass the public HTTPS MP4 URL of that earlier result in video_url. Returns the longer video's URL in `video`."

const extendSchema = `{
  "type": "object",
  "properties": {
    "prompt": {"type": "string", "maxLength": 100000, "description": "What happens in the added seconds."},
    "video_url": {"type": "string", "maxLength": 8192, "description": "Public HTTPS URL of the MP4 from a prior xAI Imagine result."},
    "duration": {"type": "integer", "minimum": 1, "maximum": 10, "description": "Seconds to add (1-10). Default 6."},
    "model": {"type": "string", "maxLength": 8192, "description": "Optional xAI video model id; defaults to the configured one."}
  },
  "required": ["prompt", "video_url"]
}`

const outputSchema = `{
  "type": "object",
  "properties": {
    "success": {"const": true},
    "video": {"type": "string"},
    "model": {"type": "string"},
    "prompt": {"type": "string"},
    "provider": {"type": "string"},
    "request_id": {"type": "string"}
  },
  "required": ["success", "video", "model", "prompt", "provider"]
}`
