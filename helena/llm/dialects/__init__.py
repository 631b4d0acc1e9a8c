"""How open models write tool calls and reasoning, parsed while they stream.

One module per model family (hermes, qwen3_coder, llama, mistral, gemma, gemma4, deepseek, harmony),
and the machinery they share in `_`-prefixed modules (_base: the fragments and blocks, _scan: finding
an opener, _calls and _jsonish: a call's name and arguments from loose JSON, _think: reasoning tags,
_tokens: special tokens, _prompting: tools in the prompt for servers without a tools field). What no
family claims degrades safely: _markers reads a marker's words, _fallback decides by them
(reasoning, call, wrapper, other), _payload reads a call whatever wraps it, _names holds an offered
tool's bare name until a call or prose follows.
parser (the StreamParser over every family) and profiles (which family a model is) are the entry
points; what the rest of Helena needs of the machinery is named here.
"""

from helena.llm.dialects._base import Call, Fragment, Malformed, Reasoning, Text
from helena.llm.dialects._calls import normalize_call, tool_types
from helena.llm.dialects._jsonish import repair_arguments
from helena.llm.dialects._markers import THINK_CLOSERS
from helena.llm.dialects._prompting import render as render_prompt
from helena.llm.dialects._prompting import tools_unsupported

__all__ = ["THINK_CLOSERS", "Call", "Fragment", "Malformed", "Reasoning", "Text", "normalize_call",
           "render_prompt", "repair_arguments", "tool_types", "tools_unsupported"]
