"""Special tokens that are markup wherever they appear: end-of-turn tokens, stray closers, and any
<|…|> or <｜…｜> token no dialect claims. They are dropped, never shown."""

from __future__ import annotations

import re

from helena.llm.dialects._base import REJECT, Block, Emit, Opener, Outcome

DROPPED = ("</tool_call>", "</tool_calls>", "</function_call>", "</function>", "</parameter>",
           "[/TOOL_CALLS]", "[ARGS]", "[CALL_ID]", "</s>", "<end_of_turn>", "<start_of_turn>", "<eos>",
           "[/INST]")
_SPECIAL_RE = re.compile(r"<(?P<bar>[|｜])[\w.\-▁]{1,48}(?P=bar)>")
_PARTIAL_RE = re.compile(r"<[|｜][\w.\-▁]*[|｜]?")
_MAX_TOKEN = 52


class Drop(Block):
    def step(self, text: str, final: bool) -> Outcome:
        return Emit(consumed=len(self.opener))


class SpecialToken(Block):
    """<|eot_id|>, <|im_end|>, <｜end▁of▁sentence｜> …: any token in the <|…|> shape."""

    def step(self, text: str, final: bool) -> Outcome:
        match = _SPECIAL_RE.match(text)
        if match:
            return Emit(consumed=match.end())
        bar = text[1]
        close = text.find(bar + ">", 2)
        if close >= 0 or final or len(text) >= _MAX_TOKEN or not _PARTIAL_RE.fullmatch(text):
            return REJECT
        return None


OPENERS = [Opener(token, Drop) for token in DROPPED] + [Opener(bar, SpecialToken) for bar in ("<|", "<｜")]
