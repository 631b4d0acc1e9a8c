"""A scripted fake of Ollama and an OpenAI-compatible server, spoken over real HTTP.

The provider tests run the real `ollama` and `openai` client libraries against it, so the
wire format (NDJSON, SSE, split tool-call deltas, error bodies) is exercised end to end
without a GPU or a cloud account.

Each scripted response is a dict, consumed in order across both chat endpoints:
  text         str (split into word deltas) or list[str] (the deltas as given)
  tool_calls   [{"name": str, "arguments": dict | str, "id"?: str}]
  status, body answer with this HTTP error instead (Ollama: {"error": body};
               OpenAI: {"error": {"message": body, ...}})
  stream_error after the deltas, send an in-stream error with this message
  delay        seconds before the first byte; chunk_delay: seconds between chunks
  repeat_name  OpenAI: repeat id, type and name in every tool-call delta
  done_reason  Ollama done_reason / OpenAI finish_reason override (e.g. "length")
  usage        (prompt_tokens, completion_tokens)
  raw          a model's raw output, streamed as content token by token the way a tokenizer cuts
               it: special tokens (<|python_tag|>, <tool_call>, <｜tool▁sep｜>, [TOOL_CALLS] …) whole,
               everything else in word, space and single-punctuation pieces (JSON split at its quotes
               and braces); for a server without a tool parser, or Ollama when its parser misses
  thinking     Ollama: reasoning streamed in message.thinking before the content (str or deltas)
  reasoning    OpenAI: reasoning deltas in `reasoning_key` ("reasoning_content" by default)
  done_content Ollama: content that arrives only in the final done chunk (what Ollama's own
               tool parser held back and flushes at the end)
  call_style   OpenAI tool-call deltas: "indexed" (default), "no_index" (no index key),
               "all_zero" (every call at index 0, told apart by id), "from_one" (indexes start
               at 1); vLLM's first delta has no "arguments" key
/api/show answers from `.model_info` (None: 404), `.capabilities` and `.template`, and consumes no
scripted response. Like Ollama, /api/chat answers 400 "… does not support tools" when tools are
sent to a model whose capabilities lack "tools" (and "… does not support thinking" likewise);
`.openai_tools = False` makes /v1 refuse tools as vLLM does without --enable-auto-tool-choice.

Instead of the FIFO script, `respond_with(fn)` answers every chat request with fn(request_json),
a dict in the same format: concurrent conversations then each get the turn that fits their own
history (e.g. the next tool call until enough tool results are in). `respond_with(None)` goes
back to the script.
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

EXACT_MARGIN = 0.003  # s before an exact deadline the timed wait ends (it overshot by up to 1.4 ms)
EXACT_SPIN = 0.0004  # s before it the short sleeps end (each overshot by up to 0.26 ms)
EXACT_AT_ONCE = 2  # answers waiting exactly at the same time, at most (the others wait as before)

Responder = Callable[[dict[str, Any]], dict[str, Any]]

DEFAULT_MODEL_INFO: dict[str, Any] = {"general.architecture": "qwen3", "qwen3.context_length": 40960}


def _split_text(text: str | list[str]) -> list[str]:
    if isinstance(text, list):
        return [part for part in text if part]
    return re.findall(r"\S+\s*|\s+", text)


# Special tokens of the dialects: a tokenizer emits each as one token, so a server streams it whole.
_SPECIAL_RE = re.compile(
    r"<\|[\w.\-]+\|>|<｜[^｜]{1,40}｜>|</?(?:tool_call|tool_calls|think|function_call|tool_response)>"
    r"|\[(?:TOOL_CALLS|ARGS|CALL_ID|/TOOL_CALLS|THINK|/THINK)\]|</s>|<end_of_turn>|<start_of_turn>"
)
_PIECE_RE = re.compile(r"[^\W_]+|_+|\s+|[^\w\s]", re.U)


def tokens(text: str) -> list[str]:
    """A raw output cut as a tokenizer would: special tokens whole, the rest in small pieces."""
    out: list[str] = []
    cursor = 0
    for match in _SPECIAL_RE.finditer(text):
        out += _PIECE_RE.findall(text[cursor:match.start()])
        out.append(match.group())
        cursor = match.end()
    out += _PIECE_RE.findall(text[cursor:])
    return [piece for piece in out if piece]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 10  # idle keep-alive connections end instead of holding a thread forever
    # As Ollama's (Go) server does: without it, a reused keep-alive connection waits ~40 ms per
    # answer for the client's delayed ACK (Nagle), which would count as the machinery's overhead.
    disable_nagle_algorithm = True
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Keep the test output clean."""

    def setup(self) -> None:
        super().setup()
        self.server.owner._track(self.connection, add=True)

    def finish(self) -> None:
        with contextlib.suppress(OSError):
            super().finish()
        self.server.owner._track(self.connection, add=False)

    def do_GET(self) -> None:
        if self.path.split("?", 1)[0].rstrip("/") == "/api/tags":  # the router's health check
            models = [{"name": name, "model": name, "modified_at": "2026-01-01T00:00:00Z", "size": 1,
                       "digest": "0" * 64, "details": {"format": "gguf", "family": "scripted"}}
                      for name in self.server.owner.models]
            self._send_json(200, {"models": models})
            return
        self._send_json(404, {"error": "not found"})

    def do_POST(self) -> None:
        owner = self.server.owner
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            self._send_json(400, {"error": "invalid JSON"})
            return
        path = self.path.split("?", 1)[0].rstrip("/")
        owner._record(path, body, {k.lower(): v for k, v in self.headers.items()})
        try:
            if path == "/api/show":
                self._show()
            elif self._refused(path, body):
                pass  # like a real server: refused before the model runs, no scripted turn used
            elif path == "/api/chat":
                self._ollama_chat(owner._response_for(body), body)
            elif path in ("/v1/chat/completions", "/chat/completions"):
                self._openai_chat(owner._response_for(body), body)
            else:
                self._send_json(404, {"error": f"unknown path {path}"})
        except (TimeoutError, BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            self.close_connection = True  # the client went away; nothing left to do

    # --- helpers ---------------------------------------------------------------------------

    def _send_json(self, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _start_stream(self, content_type: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):X}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _end_stream(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _wait(self, seconds: float, *, exact: bool = False) -> bool:
        """Sleep, but wake up at once when the server stops; False means: stop now.

        `exact` (the `delay` before an answer, which the benches divide by): to the deadline within
        ~0.05 ms. A timed wait alone overshot by 0.2–1.4 ms on a small VM (timer slack), and
        bench/agent_overhead.py counted that as Helena's time: up to 7 ms of a five-call run. Only
        while at most EXACT_AT_ONCE answers wait so: the last fraction is spent spinning, which with
        many answers at once would take the cores from the client being measured."""
        owner = self.server.owner
        stopping = owner._stopping
        if seconds <= 0:
            return not stopping.is_set()
        with owner._exact_lock:
            exact = exact and owner._exact_waiting < EXACT_AT_ONCE
            owner._exact_waiting += exact
        if not exact:
            return not stopping.wait(seconds)
        try:
            deadline = time.monotonic() + seconds
            if seconds > EXACT_MARGIN and stopping.wait(seconds - EXACT_MARGIN):
                return False
            while (left := deadline - time.monotonic()) > EXACT_SPIN:
                time.sleep(left - EXACT_SPIN)  # overshoots by less than EXACT_SPIN
            while time.monotonic() < deadline:  # the last fraction of a millisecond
                pass
            return not stopping.is_set()
        finally:
            with owner._exact_lock:
                owner._exact_waiting -= 1

    def _show(self) -> None:
        info = self.server.owner.model_info
        if info is None:
            self._send_json(404, {"error": "model not found"})
            return
        self._send_json(
            200,
            {
                "modelfile": "# scripted",
                "parameters": "",
                "template": self.server.owner.template,
                "details": {"format": "gguf", "family": "qwen3", "parameter_size": "8B"},
                "model_info": info,
                **({"capabilities": self.server.owner.capabilities}
                   if self.server.owner.capabilities is not None else {}),  # old servers: no such key
            },
        )

    def _error_or_delay(self, response: dict[str, Any], error_payload: Any) -> bool:
        """Handle delay and scripted HTTP errors; True means the response is finished."""
        if not self._wait(float(response.get("delay") or 0), exact=True):
            self.close_connection = True
            return True
        if response.get("status"):
            self._send_json(int(response["status"]), error_payload)
            return True
        return False

    # --- Ollama ----------------------------------------------------------------------------

    def _refused(self, path: str, request: dict[str, Any]) -> bool:
        """Answer 400 as Ollama (server/routes.go) and vLLM do for what the model or server cannot."""
        model = request.get("model", "")
        owner = self.server.owner
        if path == "/api/chat":
            capabilities = owner.capabilities or []
            if request.get("tools") and "tools" not in capabilities:
                self._send_json(400, {"error": f"registry.ollama.ai/library/{model} does not support tools"})
                return True
            if request.get("think") and "thinking" not in capabilities:
                self._send_json(400, {"error": f'"{model}" does not support thinking'})
                return True
        elif request.get("tools") and not owner.openai_tools:  # vLLM without a tool parser
            message = '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'
            self._send_json(400, {"error": {"message": message, "type": "BadRequestError", "param": None,
                                            "code": 400}})
            return True
        return False

    def _ollama_chat(self, response: dict[str, Any], request: dict[str, Any]) -> None:
        model = request.get("model", "")
        if self._error_or_delay(response, {"error": response.get("body", "scripted error")}):
            return
        stamp = "2025-01-01T00:00:00.000000Z"

        def line(payload: dict[str, Any]) -> bytes:
            return json.dumps(payload).encode() + b"\n"

        def message(**extra: Any) -> dict[str, Any]:
            return {"model": model, "created_at": stamp, "message": {"role": "assistant", **extra},
                    "done": False}

        parts: list[bytes] = []
        thinking = response.get("thinking") or ""
        parts += [line(message(content="", thinking=delta))
                  for delta in (thinking if isinstance(thinking, list) else tokens(thinking))]
        deltas = _split_text(response.get("text") or "") + tokens(response.get("raw") or "")
        parts += [line(message(content=delta)) for delta in deltas]
        calls = response.get("tool_calls") or []
        for index, call in enumerate(calls):  # whole, with the server's id and index (Ollama ≥ 0.12.10)
            function = {"index": index, "name": call["name"], "arguments": call.get("arguments", {})}
            call_id = call.get("id") or f"call_{index:08d}"
            parts.append(line(message(content="", tool_calls=[{"id": call_id, "function": function}])))
        if response.get("stream_error"):
            parts.append(line({"error": response["stream_error"]}))
        else:
            prompt, completion = response.get("usage") or (17, len(deltas) + len(calls))
            parts.append(line({
                "model": model, "created_at": stamp,
                "message": {"role": "assistant", "content": response.get("done_content") or ""},
                "done": True, "done_reason": response.get("done_reason", "stop"),
                "total_duration": 1000, "load_duration": 10, "prompt_eval_count": prompt,
                "prompt_eval_duration": 100, "eval_count": completion, "eval_duration": 500,
            }))
        self._stream_parts("application/x-ndjson", parts, float(response.get("chunk_delay") or 0))

    # --- OpenAI ----------------------------------------------------------------------------

    def _openai_chat(self, response: dict[str, Any], request: dict[str, Any]) -> None:
        error = {"error": {"message": response.get("body", "scripted error"), "type": "server_error",
                           "param": None, "code": None}}
        if self._error_or_delay(response, error):
            return
        model = request.get("model", "")
        created = int(time.time())

        def event(choices: list[dict[str, Any]], **extra: Any) -> bytes:
            payload = {"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": created,
                       "model": model, "system_fingerprint": None, "choices": choices, **extra}
            return b"data: " + json.dumps(payload).encode() + b"\n\n"

        def delta(content: dict[str, Any], finish: str | None = None) -> bytes:
            return event([{"index": 0, "delta": content, "logprobs": None, "finish_reason": finish}])

        parts = [delta({"role": "assistant", "content": ""})]
        reasoning = response.get("reasoning") or ""
        key = response.get("reasoning_key") or "reasoning_content"
        parts += [delta({"content": None, key: piece})
                  for piece in (reasoning if isinstance(reasoning, list) else tokens(reasoning))]
        deltas = _split_text(response.get("text") or "") + tokens(response.get("raw") or "")
        parts += [delta({"content": text}) for text in deltas]
        calls = response.get("tool_calls") or []
        repeat = bool(response.get("repeat_name"))
        style = response.get("call_style") or "indexed"
        for number, call in enumerate(calls):
            index = 0 if style == "all_zero" else number + 1 if style == "from_one" else number
            call_id = call.get("id") or f"call_{number}_{created}"
            arguments = call.get("arguments", {})
            if not isinstance(arguments, str):
                arguments = json.dumps(arguments, ensure_ascii=False)
            pieces = [arguments[i:i + 7] for i in range(0, len(arguments), 7)]
            head: dict[str, Any] = {"index": index, "id": call_id, "type": "function",
                                    "function": {"name": call["name"]}}  # vLLM: no "arguments" key yet
            if style == "no_index":
                del head["index"]
            parts.append(delta({"tool_calls": [head]}))
            for piece in pieces:
                fragment: dict[str, Any] = {"index": index, "function": {"arguments": piece}}
                if repeat:
                    fragment = {"index": index, "id": call_id, "type": "function",
                                "function": {"name": call["name"], "arguments": piece}}
                if style == "no_index":
                    del fragment["index"]
                parts.append(delta({"tool_calls": [fragment]}))
        if response.get("stream_error"):
            parts.append(b"data: " + json.dumps({"error": {"message": response["stream_error"],
                                                           "type": "server_error"}}).encode() + b"\n\n")
        else:
            finish = response.get("done_reason") or ("tool_calls" if calls else "stop")
            parts.append(delta({}, finish))
            if (request.get("stream_options") or {}).get("include_usage"):
                prompt, completion = response.get("usage") or (17, len(deltas) + len(calls))
                usage = {"prompt_tokens": prompt, "completion_tokens": completion,
                         "total_tokens": prompt + completion}
                parts.append(event([], usage=usage))
            parts.append(b"data: [DONE]\n\n")
        self._stream_parts("text/event-stream", parts, float(response.get("chunk_delay") or 0))

    def _stream_parts(self, content_type: str, parts: list[bytes], chunk_delay: float) -> None:
        self._start_stream(content_type)
        for i, part in enumerate(parts):
            if i and not self._wait(chunk_delay):
                self.close_connection = True
                return
            self._write_chunk(part)
            if self.server.owner.chunk_log is not None:
                self.server.owner.chunk_log.append((time.time(), part))
        self._end_stream()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    # socketserver's default backlog of 5 drops connections when many clients connect at once
    # (load benchmarks); a dropped SYN costs the client a 1 s retransmit, which is not the model.
    request_queue_size = 128
    owner: ScriptedLLMServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Clients that hang up (timeouts, closed keep-alive connections) are normal here."""
        if isinstance(sys.exc_info()[1], OSError):
            return
        super().handle_error(request, client_address)


class ScriptedLLMServer:
    """Handle on a running server: script it, inspect what the clients sent, stop it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._responses: list[dict[str, Any]] = []
        self._responder: Responder | None = None
        self._connections: set[socket.socket] = set()
        self._stopping = threading.Event()
        self._exact_lock = threading.Lock()
        self._exact_waiting = 0  # answers in an exact wait now (_Handler._wait)
        self.requests: list[dict[str, Any]] = []  # JSON bodies, in arrival order
        self.paths: list[str] = []  # the path of each recorded request
        self.headers: list[dict[str, str]] = []  # lower-cased names
        self.model_info: dict[str, Any] | None = dict(DEFAULT_MODEL_INFO)
        self.capabilities: list[str] | None = ["completion", "tools"]  # /api/show (None: not reported)
        self.template = "{{ .Prompt }}"
        self.models: list[str] = []  # what /api/tags lists, as Ollama lists the models it has pulled
        self.openai_tools = True  # False: /v1 refuses tools (vLLM without --enable-auto-tool-choice)
        # Set to a list to record (epoch seconds after the write, raw chunk) of every streamed chunk:
        # bench/stream_latency.py measures from here to the websocket client.
        self.chunk_log: list[tuple[float, bytes]] | None = None
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        host, port = self._httpd.server_address[:2]
        self.url = f"http://{host}:{port}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="scripted-llm-server", daemon=True)
        self._thread.start()

    def script(self, responses: list[dict[str, Any]]) -> ScriptedLLMServer:
        """Queue responses (appended to what is left)."""
        with self._lock:
            self._responses.extend(dict(r) for r in responses)
        return self

    def respond_with(self, fn: Responder | None) -> ScriptedLLMServer:
        """Answer each chat request with fn(request_json) instead of the script (None: the script again).

        fn runs on the request's handler thread, so it may be called concurrently.
        """
        with self._lock:
            self._responder = fn
        return self

    @property
    def remaining(self) -> int:
        with self._lock:
            return len(self._responses)

    def requests_to(self, path: str) -> list[dict[str, Any]]:
        with self._lock:
            return [body for p, body in zip(self.paths, self.requests, strict=True) if p == path]

    def stop(self) -> None:
        """Stop serving, wake sleeping handlers and cut open connections."""
        if self._stopping.is_set():
            return
        self._stopping.set()
        self._httpd.shutdown()
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> ScriptedLLMServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- used by the handler ---------------------------------------------------------------

    def _response_for(self, request: dict[str, Any]) -> dict[str, Any]:
        """The responder's answer if one is set (a failing responder becomes an HTTP 500), else the script."""
        with self._lock:
            responder = self._responder
        if responder is None:
            return self._next_response()
        try:
            return dict(responder(request))
        except Exception as exc:  # a bug in the responder must show up in the client, not hang it
            return {"status": 500, "body": f"scripted server: responder failed: {type(exc).__name__}: {exc}"}

    def _next_response(self) -> dict[str, Any]:
        with self._lock:
            if self._responses:
                return self._responses.pop(0)
        return {"status": 500, "body": "scripted server: no response left"}

    def _record(self, path: str, body: dict[str, Any], headers: dict[str, str]) -> None:
        with self._lock:
            self.paths.append(path)
            self.requests.append(body)
            self.headers.append(headers)

    def _track(self, conn: socket.socket, *, add: bool) -> None:
        with self._lock:
            if add:
                self._connections.add(conn)
            else:
                self._connections.discard(conn)


def start_scripted_server() -> ScriptedLLMServer:
    """Start a server on 127.0.0.1 with a free port; call .stop() (or use it as a context manager)."""
    return ScriptedLLMServer()


def unused_port() -> int:
    """A port nothing listens on (bound, then released), for connection-refused tests."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
