package video

// The original's schema (tools/vision_tools.py, VIDEO_ANALYZE_SCHEMA).
const description = "Analyze a video from a URL or local file path using a multimodal AI model. Sends the " +
	"video to a video-capable model (e.g. Gemini) for understanding. Use this for video files — for images, " +
	"use vision_analyze instead. Supports mp4, webm, mov, avi, mkv, mpeg formats. Note: large videos (>20 MB) " +
	"may be slow; max ~50 MB."

const inputSchema = `{
  "type": "object",
  "properties": {
    "video_url": {
      "type": "string", "maxLength": 8192,
      "description": "Video URL (http/https) or local file path to analyze."
    },
    "question": {
      "type": "string", "maxLength": 100000,
      "description": "Your specific question about the video. The AI will describe what happens in the video and answer your question."
    }
  },
  "required": ["video_url", "question"]
}`

const outputSchema = `{
  "type": "object",
  "properties": {
    "success": {"const": true},
    "analysis": {"type": "string"}
  },
  "required": ["success", "analysis"]
}`
