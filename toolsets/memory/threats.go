package memory

import (
	"fmt"
	"regexp"
	"sync"
)

// Memory is placed into future system prompts, so a write that smuggles in
// instructions for the model, or hides text from the person reading the
// file, persists across sessions. These checks refuse the obvious forms;
// they are a tripwire, not a guarantee.

type threatPattern struct {
	id string
	re *regexp.Regexp
}

// threatPatterns are compiled on first use: compiling them at package init
// would add to every server start, most of which never write memory.
var threatPatterns = sync.OnceValue(func() []threatPattern {
	return []threatPattern{
		{"override-instructions", regexp.MustCompile(`(?i)\b(ignore|disregard|forget|override)\s+(all\s+|any\s+)?(of\s+)?(the\s+|your\s+)?(previous|prior|above|earlier|system|original)\s+(instructions|prompts?|rules|guidelines|directives)`)},
		{"new-instructions", regexp.MustCompile(`(?i)\b(new|updated|real)\s+system\s+(prompt|instructions?)\s*:`)},
		{"role-tag", regexp.MustCompile(`(?i)<\s*/?\s*(system|assistant|developer)\s*>|\[/?(system|inst)\]`)},
		{"reveal-prompt", regexp.MustCompile(`(?i)\b(reveal|print|repeat|output|leak)\s+(your|the)\s+(system\s+prompt|hidden\s+instructions)`)},
		{"exfiltration", regexp.MustCompile(`(?i)\b(curl|wget|fetch)\b[^\n]{0,200}\$\{?[A-Z0-9_]*(KEY|TOKEN|SECRET|PASSWORD)`)},
		{"exfiltration", regexp.MustCompile(`(?i)\b(send|post|upload|forward|exfiltrate)\b[^\n]{0,60}\b(api[\s_-]?keys?|credentials|secrets|passwords|tokens)\b[^\n]{0,60}\b(to|at)\s+(https?://|\S+@\S+)`)},
	}
})

// invisible are characters that render as nothing or reorder text, so a
// person reviewing MEMORY.md would not see what the model reads.
func invisible(r rune) bool {
	switch {
	case r >= 0x200B && r <= 0x200F, r >= 0x202A && r <= 0x202E, r >= 0x2060 && r <= 0x2064, r >= 0x2066 && r <= 0x2069, r == 0xFEFF:
		return true
	}
	return false
}

// scanThreats returns why content is refused, or "".
func scanThreats(content string) string {
	for _, r := range content {
		if invisible(r) {
			return fmt.Sprintf("Blocked: the content contains an invisible Unicode character (U+%04X) that could hide text from the person reading the memory file. Remove it and retry.", r)
		}
	}
	for _, p := range threatPatterns() {
		if p.re.MatchString(content) {
			return fmt.Sprintf("Blocked: the content reads as an instruction aimed at the model (%s), not a fact to remember. Memory is placed into future system prompts, so it must not carry such text; write it as a plain note.", p.id)
		}
	}
	return ""
}
