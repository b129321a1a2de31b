package configcheck

// Provider ids the original accepts in model.provider (and the other
// provider keys), read from NousResearch/hermes-agent: hermes_cli/models.py
// CANONICAL_PROVIDERS and _PROVIDER_ALIASES (since commit 00067189 they
// live in hermes_cli/models_catalog_static.py), hermes_cli/auth.py
// PROVIDER_REGISTRY ("ai-gateway"), and the special values "auto" and
// "custom". "openai" is ours as well as an older Hermes spelling
// (agentcore/native). Plugins can add providers, so an id missing here is
// only reported when it is a near miss of one listed.

// canonicalProviders are the ids suggestions name.
var canonicalProviders = []string{
	"auto", "custom",
	"openrouter", "nous", "anthropic", "openai", "openai-codex", "openai-api",
	"gemini", "deepseek", "xai", "xai-oauth", "zai", "kimi-coding", "kimi-coding-cn",
	"minimax", "minimax-oauth", "minimax-cn", "alibaba", "qwen-oauth", "copilot", "copilot-acp",
	"huggingface", "nvidia", "xiaomi", "tencent-tokenhub", "stepfun", "arcee", "gmi",
	"kilocode", "opencode-zen", "opencode-go", "bedrock", "azure-foundry", "ollama-cloud",
	"lmstudio", "novita", "fireworks", "moa", "ai-gateway",
}

// providerAliases are other spellings the original maps to a canonical id;
// they are valid values but never suggested.
var providerAliases = []string{
	"glm", "z-ai", "z.ai", "zhipu", "github", "github-copilot", "github-models", "github-model",
	"github-copilot-acp", "copilot-acp-agent", "google", "google-gemini", "google-ai-studio",
	"kimi", "moonshot", "kimi-cn", "moonshot-cn", "step", "stepfun-coding-plan", "arcee-ai",
	"arceeai", "gmi-cloud", "gmicloud", "minimax-china", "minimax_cn", "minimax-portal",
	"minimax-global", "minimax_oauth", "claude", "claude-code", "deep-seek", "opencode", "zen",
	"go", "opencode-go-sub", "kilo", "kilo-code", "kilo-gateway", "dashscope", "aliyun", "qwen",
	"alibaba-cloud", "qwen-portal", "hf", "hugging-face", "huggingface-hub", "novita-ai",
	"novitaai", "mimo", "xiaomi-mimo", "tencent", "tokenhub", "tencent-cloud", "tencentmaas",
	"aws", "aws-bedrock", "amazon-bedrock", "amazon", "grok", "grok-oauth", "x-ai-oauth",
	"xai-grok-oauth", "x-ai", "x.ai", "nim", "nvidia-nim", "build-nvidia", "nemotron",
	"lm-studio", "lm_studio", "ollama", "ollama_cloud", "gpt", "or", "open-router", "aigateway",
	"vercel", "vercel-ai-gateway", "codex", "chatgpt", "local", "vllm", "llamacpp", "llama.cpp",
	"llama-cpp", // ours (agentcore/native)
}
