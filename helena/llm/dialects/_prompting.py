"""Prompt-based tool calling, for models and servers that take no tools parameter.

Ollama answers HTTP 400 "… does not support tools" for a model whose template has no tools
(Gemma 3, many fine-tunes); vLLM without --enable-auto-tool-choice, llama.cpp without --jinja and
LiteLLM for some providers refuse likewise. Then the tools are described in the system prompt, the
history's calls and results are written as text in the same format, and the calls are read from
the answer by the dialect parser, like any text-written call.
"""

from __future__ import annotations

import json
import re
from typing import Any

from helena.llm.dialects.profiles import PromptFormat

_UNSUPPORTED_RE = re.compile(
    r"does not support tools|does not support parameters.{0,40}tools|tool choice requires"
    r"|requires --jinja|tools? (?:are|is) not supported|does not support (?:function|tool) calling",
    re.I | re.S,
)

_HERMES = """# Werkzeuge

Du kannst Werkzeuge aufrufen. Die verfügbaren Werkzeuge stehen als JSON-Schemata zwischen <tools></tools>:
<tools>
{tools}
</tools>

Um ein Werkzeug aufzurufen, antworte mit einem JSON-Objekt aus Name und Argumenten zwischen
<tool_call></tool_call>, ein Block je Aufruf, zum Beispiel:
<tool_call>
{{"name": "werkzeug_name", "arguments": {{"parameter": "wert"}}}}
</tool_call>
Die Ergebnisse bekommst du zwischen <tool_response></tool_response>. Wenn du kein Werkzeug brauchst,
antworte direkt auf Deutsch."""

_GEMMA = """# Werkzeuge

Du hast Zugriff auf diese Python-Funktionen (JSON-Schemata):
{tools}

Wenn du eine Funktion aufrufen willst, schreibe den Aufruf mit Schlüsselwortargumenten in einen
Codeblock ```tool_code```, zum Beispiel:
```tool_code
werkzeug_name(parameter="wert")
```
Das Ergebnis bekommst du in einem Block ```tool_output```. Wenn du keine Funktion brauchst, antworte
direkt auf Deutsch."""


def tools_unsupported(detail: str) -> bool:
    """Whether a server's error says it cannot take tools (so prompt-based calling may help)."""
    return bool(_UNSUPPORTED_RE.search(detail or ""))


def _schema_list(tools: list[dict[str, Any]]) -> str:
    return "\n".join(json.dumps(tool.get("function", tool), ensure_ascii=False) for tool in tools)


def _call_text(call: dict[str, Any], fmt: PromptFormat) -> str:
    function = call.get("function") or {}
    arguments = function.get("arguments")
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except ValueError:
            arguments = {}
    if not isinstance(arguments, dict):
        arguments = {}
    name = function.get("name", "")
    if fmt == "gemma":
        args = ", ".join(f"{key}={json.dumps(value, ensure_ascii=False)}" for key, value in arguments.items())
        return f"```tool_code\n{name}({args})\n```"
    payload = json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False)
    return f"<tool_call>\n{payload}\n</tool_call>"


def _result_text(message: dict[str, Any], fmt: PromptFormat) -> str:
    content = message.get("content") or ""
    if not isinstance(content, str):
        content = json.dumps(content, ensure_ascii=False)
    if fmt == "gemma":
        return f"```tool_output\n{content}\n```"
    return f"<tool_response>\n{content}\n</tool_response>"


def render(messages: list[dict[str, Any]], tools: list[dict[str, Any]], fmt: PromptFormat
           ) -> list[dict[str, Any]]:
    """The history for a server without tools: tools in the system prompt, calls and results as text."""
    template = _GEMMA if fmt == "gemma" else _HERMES
    description = template.format(tools=_schema_list(tools))
    out: list[dict[str, Any]] = []
    for message in messages:
        role = message.get("role")
        if role == "assistant" and message.get("tool_calls"):
            parts = [message.get("content") or ""] + [_call_text(c, fmt) for c in message["tool_calls"]]
            out.append({"role": "assistant", "content": "\n".join(p for p in parts if p)})
        elif role == "tool":
            text = _result_text(message, fmt)
            if out and out[-1].get("role") == "user" and out[-1].get("_results"):
                out[-1] = {**out[-1], "content": out[-1]["content"] + "\n" + text}
            else:
                out.append({"role": "user", "content": text, "_results": True})
        else:
            out.append({k: v for k, v in message.items() if k in ("role", "content")})
    for message in out:
        message.pop("_results", None)
    if out and out[0].get("role") == "system":
        out[0] = {**out[0], "content": f"{out[0].get('content') or ''}\n\n{description}".strip()}
    else:
        out.insert(0, {"role": "system", "content": description})
    return out
