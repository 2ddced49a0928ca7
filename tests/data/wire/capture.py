#!/usr/bin/env python3
"""Logging stand-in for the model APIs, used to capture what real CLI agents send.

Listens on 127.0.0.1, writes every request it receives (method, path, headers
without credentials, parsed body) as one JSON file per request into a log
folder, and answers with the smallest valid response of the API asked for, so
that a client completes at least one full request/response exchange:

- POST /v1/messages[?...]         Anthropic Messages: a text-only `end_turn`
                                  message, as JSON or as SSE when `"stream": true`
- POST /v1/messages/count_tokens  Anthropic token counting: `{"input_tokens": 10}`
- POST /v1/responses              OpenAI Responses: a `message` item, as SSE
                                  (`response.created` ... `response.completed`)
                                  when streaming, else the response object
- POST /v1/chat/completions       OpenAI Chat Completions: one text choice (scripted
                                  when the request offers tools; SSE chunks when
                                  streaming)
- POST /v1beta/models/M:generateContent, :streamGenerateContent
                                  Gemini API: a `model` content (scripted when the
                                  request offers tools; SSE `data:` chunks when
                                  streaming)
- GET  /v1/models                 a one-model list
- anything else                   404 with an API-shaped error

With a SCRIPT file (JSON list, one entry per model call, in the scenario
format: `{"text": ...}`, `{"tool": NAME, "input": {...}}`, `{"tools": [...],
"text": ...}`; an `input` that is a string is a freeform call), the Anthropic,
Responses, Chat Completions and Gemini endpoints answer with those responses in order (tool ids
`toolu_<turn>_<k>` / `call_<turn>_<k>`), then with a final text once the script
is used up. That makes a client send follow-up requests carrying tool results.

Stdlib only. Usage: capture.py LOG_DIR [PORT [SCRIPT]]; prints "listening on
PORT" once ready (PORT 0 picks a free port).
"""

import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SECRET_HEADERS = {"authorization", "x-api-key", "cookie", "openai-organization", "openai-project"}
REPLY_TEXT = "Captured."

_counter_lock = threading.Lock()
_counter = [0]
_turns = {"anthropic": 0, "responses": 0, "chat": 0, "gemini": 0}
SCRIPT = []


def _next_turn(api):
    """The 1-based turn for this API and the scripted entry for it (None: script used up)."""
    with _counter_lock:
        _turns[api] += 1
        turn = _turns[api]
    entry = SCRIPT[turn - 1] if turn <= len(SCRIPT) else None
    return turn, entry


def _calls(entry):
    if entry is None:
        return None, []
    if "tool" in entry:
        return entry.get("text"), [{"tool": entry["tool"], "input": entry.get("input", {})}]
    return entry.get("text"), list(entry.get("tools", []))


def _next_index():
    with _counter_lock:
        _counter[0] += 1
        return _counter[0]


def _sse(event, data):
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def anthropic_message(model, turn, entry):
    text, calls = _calls(entry)
    if entry is None:
        text = REPLY_TEXT
    content = [{"type": "text", "text": text}] if text else []
    for k, call in enumerate(calls, 1):
        content.append({"type": "tool_use", "id": f"toolu_{turn}_{k}", "name": call["tool"],
                        "input": call.get("input", {})})
    return {
        "id": f"msg_capture_{turn}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": "tool_use" if calls else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 2},
    }


def anthropic_stream(model, turn, entry):
    message = anthropic_message(model, turn, entry)
    start = dict(message, content=[], stop_reason=None, usage={"input_tokens": 10, "output_tokens": 1})
    out = _sse("message_start", {"type": "message_start", "message": start})
    out += _sse("ping", {"type": "ping"})
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            out += _sse("content_block_start", {"type": "content_block_start", "index": index,
                                                "content_block": {"type": "text", "text": ""}})
            out += _sse("content_block_delta", {"type": "content_block_delta", "index": index,
                                                "delta": {"type": "text_delta", "text": block["text"]}})
        else:
            out += _sse("content_block_start", {"type": "content_block_start", "index": index,
                                                "content_block": dict(block, input={})})
            out += _sse("content_block_delta", {"type": "content_block_delta", "index": index,
                                                "delta": {"type": "input_json_delta",
                                                          "partial_json": json.dumps(block["input"])}})
        out += _sse("content_block_stop", {"type": "content_block_stop", "index": index})
    out += _sse("message_delta", {"type": "message_delta",
                                  "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                                  "usage": {"output_tokens": 2}})
    out += _sse("message_stop", {"type": "message_stop"})
    return out


def responses_items(turn, entry):
    text, calls = _calls(entry)
    if entry is None:
        text = REPLY_TEXT
    items = []
    if text:
        items.append({"id": f"msg_capture_{turn}", "type": "message", "role": "assistant", "status": "completed",
                      "content": [{"type": "output_text", "text": text, "annotations": []}]})
    for k, call in enumerate(calls, 1):
        payload = call.get("input", {})
        if isinstance(payload, str):
            items.append({"id": f"ctc_{turn}_{k}", "type": "custom_tool_call", "status": "completed",
                          "call_id": f"call_{turn}_{k}", "name": call["tool"], "input": payload})
        else:
            items.append({"id": f"fc_{turn}_{k}", "type": "function_call", "status": "completed",
                          "call_id": f"call_{turn}_{k}", "name": call["tool"], "arguments": json.dumps(payload)})
    return items


def responses_object(model, status, output):
    return {
        "id": "resp_capture_1",
        "object": "response",
        "created_at": 0,
        "status": status,
        "model": model,
        "output": output,
        "usage": {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
                  "output_tokens": 2, "output_tokens_details": {"reasoning_tokens": 0},
                  "total_tokens": 12},
    }


def responses_stream(model, turn, entry):
    items = responses_items(turn, entry)
    seq = iter(range(100000))

    def ev(kind, **fields):
        return _sse(kind, dict({"type": kind, "sequence_number": next(seq)}, **fields))

    out = ev("response.created", response=responses_object(model, "in_progress", []))
    out += ev("response.in_progress", response=responses_object(model, "in_progress", []))
    for index, item in enumerate(items):
        if item["type"] == "message":
            text = item["content"][0]["text"]
            out += ev("response.output_item.added", output_index=index,
                      item=dict(item, status="in_progress", content=[]))
            out += ev("response.content_part.added", item_id=item["id"], output_index=index, content_index=0,
                      part={"type": "output_text", "text": "", "annotations": []})
            out += ev("response.output_text.delta", item_id=item["id"], output_index=index, content_index=0,
                      delta=text)
            out += ev("response.output_text.done", item_id=item["id"], output_index=index, content_index=0,
                      text=text)
            out += ev("response.content_part.done", item_id=item["id"], output_index=index, content_index=0,
                      part=item["content"][0])
        elif item["type"] == "function_call":
            out += ev("response.output_item.added", output_index=index,
                      item=dict(item, status="in_progress", arguments=""))
            out += ev("response.function_call_arguments.delta", item_id=item["id"], output_index=index,
                      delta=item["arguments"])
            out += ev("response.function_call_arguments.done", item_id=item["id"], output_index=index,
                      arguments=item["arguments"])
        else:
            out += ev("response.output_item.added", output_index=index,
                      item=dict(item, status="in_progress", input=""))
            out += ev("response.custom_tool_call_input.delta", item_id=item["id"], output_index=index,
                      delta=item["input"])
            out += ev("response.custom_tool_call_input.done", item_id=item["id"], output_index=index,
                      input=item["input"])
        out += ev("response.output_item.done", output_index=index, item=item)
    out += ev("response.completed", response=responses_object(model, "completed", items))
    return out


def chat_completion(model):
    return {
        "id": "chatcmpl_capture_1",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": REPLY_TEXT}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12},
    }


def chat_message(turn, entry):
    text, calls = _calls(entry)
    if entry is None:
        text = REPLY_TEXT
    message = {"role": "assistant", "content": text or None}
    if calls:
        message["tool_calls"] = [
            {"id": f"call_{turn}_{k}", "type": "function",
             "function": {"name": c["tool"], "arguments": json.dumps(c.get("input", {}))}}
            for k, c in enumerate(calls, 1)]
    return message, ("tool_calls" if calls else "stop")


def chat_scripted(model, turn, entry):
    message, finish = chat_message(turn, entry)
    return {"id": f"chatcmpl_capture_{turn}", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "finish_reason": finish, "message": message}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}}


def chat_stream(model, turn, entry):
    message, finish = chat_message(turn, entry)

    def chunk(delta, reason=None, usage=None):
        body = {"id": f"chatcmpl_capture_{turn}", "object": "chat.completion.chunk", "created": 0,
                "model": model, "choices": [{"index": 0, "delta": delta, "finish_reason": reason}]}
        if usage:
            body["choices"] = []
            body["usage"] = usage
        return f"data: {json.dumps(body)}\n\n".encode()

    out = chunk({"role": "assistant", "content": ""})
    if message["content"]:
        out += chunk({"content": message["content"]})
    for index, call in enumerate(message.get("tool_calls", [])):
        out += chunk({"tool_calls": [dict(call, index=index)]})
    out += chunk({}, finish)
    out += chunk({}, usage={"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12})
    return out + b"data: [DONE]\n\n"


def gemini_response(model, turn, entry):
    text, calls = _calls(entry)
    if entry is None:
        text = REPLY_TEXT
    parts = [{"text": text}] if text else []
    for k, call in enumerate(calls, 1):
        parts.append({"functionCall": {"id": f"call_{turn}_{k}", "name": call["tool"],
                                       "args": call.get("input", {})}})
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP",
                            "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 2, "totalTokenCount": 12},
            "modelVersion": model, "responseId": f"capture_{turn}"}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    log_dir = "."

    def log_message(self, fmt, *args):  # keep stderr quiet; the log folder is the record
        pass

    def _read_body(self):
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length > 0 else b""
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            return {"_unparsed": raw.decode("utf-8", "replace")}

    def _record(self, body):
        index = _next_index()
        headers = {k.lower(): v for k, v in self.headers.items() if k.lower() not in SECRET_HEADERS}
        entry = {"index": index, "method": self.command, "path": self.path, "headers": headers, "body": body}
        name = os.path.join(self.log_dir, f"{index:03d}.json")
        with open(name, "w", encoding="utf-8") as f:
            json.dump(entry, f, indent=2, ensure_ascii=False)

    def _send(self, status, content_type, payload):
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(payload)))
        self.send_header("request-id", "req_capture")
        self.send_header("x-request-id", "req_capture")
        self.end_headers()
        self.wfile.write(payload)

    def _json(self, status, obj):
        self._send(status, "application/json", json.dumps(obj).encode())

    def do_GET(self):
        self._record(None)
        path = self.path.split("?", 1)[0]
        if path.rstrip("/").endswith("/models"):
            self._json(200, {"object": "list", "data": [
                {"id": "capture-model", "object": "model", "type": "model", "created": 0,
                 "owned_by": "capture", "display_name": "capture-model", "created_at": "2025-01-01T00:00:00Z"}],
                "has_more": False, "first_id": "capture-model", "last_id": "capture-model"})
        else:
            self._json(404, {"type": "error", "error": {"type": "not_found_error", "message": f"no route {path}"}})

    def do_POST(self):
        body = self._read_body()
        self._record(body)
        path = self.path.split("?", 1)[0]
        req = body if isinstance(body, dict) else {}
        model = req.get("model", "capture-model")
        stream = bool(req.get("stream"))
        if path.endswith("/messages/count_tokens"):
            self._json(200, {"input_tokens": 10})
        elif path.endswith("/messages"):
            turn, entry = _next_turn("anthropic")
            if stream:
                self._send(200, "text/event-stream", anthropic_stream(model, turn, entry))
            else:
                self._json(200, anthropic_message(model, turn, entry))
        elif path.endswith("/responses"):
            turn, entry = _next_turn("responses")
            if stream:
                self._send(200, "text/event-stream", responses_stream(model, turn, entry))
            else:
                self._json(200, responses_object(model, "completed", responses_items(turn, entry)))
        elif path.endswith("/chat/completions"):
            if not req.get("tools"):
                self._json(200, chat_completion(model))
                return
            turn, entry = _next_turn("chat")
            if stream:
                self._send(200, "text/event-stream", chat_stream(model, turn, entry))
            else:
                self._json(200, chat_scripted(model, turn, entry))
        elif ":generateContent" in path or ":streamGenerateContent" in path:
            model = path.rsplit("/", 1)[-1].split(":", 1)[0]
            if req.get("tools"):
                turn, entry = _next_turn("gemini")
            else:
                turn, entry = 0, None
            reply = gemini_response(model, turn, entry)
            if ":streamGenerateContent" in path:
                self._send(200, "text/event-stream", f"data: {json.dumps(reply)}\r\n\r\n".encode())
            else:
                self._json(200, reply)
        else:
            self._json(404, {"type": "error", "error": {"type": "not_found_error", "message": f"no route {path}"}})


def main():
    if len(sys.argv) < 2:
        print("usage: capture.py LOG_DIR [PORT [SCRIPT]]", file=sys.stderr)
        return 2
    Handler.log_dir = sys.argv[1]
    os.makedirs(Handler.log_dir, exist_ok=True)
    port = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    if len(sys.argv) > 3:
        with open(sys.argv[3], encoding="utf-8") as f:
            SCRIPT.extend(json.load(f))
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print(f"listening on {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
