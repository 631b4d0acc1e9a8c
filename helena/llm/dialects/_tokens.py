"""Special tokens that are markup wherever they appear: end-of-turn tokens and stray closers.

They are dropped, never shown. Any other token (<|…|>, <｜…｜>, Gemma 4's <|…> and <…|>) is read
by its words in _fallback.
"""

from __future__ import annotations

from helena.llm.dialects._base import Block, Emit, Opener, Outcome

DROPPED = ("</tool_call>", "</tool_calls>", "</function_call>", "</function>", "</parameter>",
           "[/TOOL_CALLS]", "[ARGS]", "[CALL_ID]", "</s>", "<end_of_turn>", "<start_of_turn>", "<eos>",
           "[/INST]")


class Drop(Block):
    def step(self, text: str, final: bool) -> Outcome:
        return Emit(consumed=len(self.opener))


OPENERS = [Opener(token, Drop) for token in DROPPED]
