"""Drive agent-eval's mock server with the official Python SDKs.

Usage: python3 sdk_check.py BASE_URL

The server's model answers the first turn with a text and a `bash` call
({"command": "ls -la"}, id toolu_1_1) and every later turn with "Done.".
Every check raises on failure; the script prints OK at the end.
"""

import json
import sys

import anthropic
import openai

BASE = sys.argv[1]
TOOLS = [{
    "name": "bash",
    "description": "Run a shell command.",
    "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
}]
TASK = [{"role": "user", "content": "List the files."}]


def anthropic_checks():
    client = anthropic.Anthropic(base_url=BASE, api_key="dummy", max_retries=0, timeout=30)
    first = client.messages.create(model="mock", max_tokens=100, system="sys", tools=TOOLS, messages=TASK,
                                   metadata={"user_id": "u"})
    assert first.stop_reason == "tool_use", first
    assert first.content[0].type == "text" and first.content[0].text == "Planning.", first
    call = first.content[1]
    assert call.type == "tool_use" and call.id == "toolu_1_1" and call.input == {"command": "ls -la"}, call
    assert first.usage.input_tokens > 0 and first.usage.output_tokens > 0
    history = TASK + [
        {"role": "assistant", "content": [b.model_dump() for b in first.content]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id, "content": "a.txt"}]},
    ]
    second = client.messages.create(model="mock", max_tokens=100, tools=TOOLS, messages=history)
    assert second.stop_reason == "end_turn" and second.content[0].text == "Done.", second

    kinds = [event.type for event in client.messages.create(
        model="mock", max_tokens=100, tools=TOOLS, messages=TASK, stream=True)]
    assert kinds[0] == "message_start" and kinds[-1] == "message_stop", kinds
    assert "content_block_delta" in kinds and "message_delta" in kinds, kinds

    with client.messages.stream(model="mock", max_tokens=100, tools=TOOLS, messages=TASK) as stream:
        final = stream.get_final_message()
    assert final.stop_reason == "tool_use", final
    assert final.content[1].input == {"command": "ls -la"}, final
    with client.messages.stream(model="mock", max_tokens=100, tools=TOOLS, messages=history) as stream:
        assert "".join(stream.text_stream) == "Done."

    try:
        client.messages.create(model="mock", max_tokens=100, messages=[{"role": "user", "content": 5}])
        raise AssertionError("a malformed request was accepted")
    except anthropic.BadRequestError as error:
        assert error.body["error"]["type"] == "invalid_request_error", error.body


def chat_checks():
    client = openai.OpenAI(base_url=BASE + "/v1", api_key="dummy", max_retries=0, timeout=30)
    tools = [{"type": "function", "function": {"name": "bash", "parameters": TOOLS[0]["input_schema"]}}]
    messages = [{"role": "system", "content": "sys"}, {"role": "user", "content": "List the files."}]
    first = client.chat.completions.create(model="mock", messages=messages, tools=tools)
    choice = first.choices[0]
    assert choice.finish_reason == "tool_calls", first
    assert choice.message.content == "Planning.", first
    call = choice.message.tool_calls[0]
    assert call.id == "call_1_1" and json.loads(call.function.arguments) == {"command": "ls -la"}, call
    history = messages + [
        choice.message.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": call.id, "content": "a.txt"},
    ]
    second = client.chat.completions.create(model="mock", messages=history, tools=tools)
    assert second.choices[0].finish_reason == "stop" and second.choices[0].message.content == "Done."

    arguments, text, finish, usage = "", "", None, None
    for chunk in client.chat.completions.create(model="mock", messages=messages, tools=tools, stream=True,
                                                stream_options={"include_usage": True}):
        if chunk.usage is not None:
            usage = chunk.usage
        for c in chunk.choices:
            text += c.delta.content or ""
            for tc in c.delta.tool_calls or []:
                arguments += tc.function.arguments or ""
            finish = c.finish_reason or finish
    assert text == "Planning." and json.loads(arguments) == {"command": "ls -la"}, (text, arguments)
    assert finish == "tool_calls" and usage is not None and usage.total_tokens > 0

    with client.chat.completions.stream(model="mock", messages=messages, tools=tools) as stream:
        final = stream.get_final_completion()
    assert final.choices[0].message.tool_calls[0].function.arguments == call.function.arguments, final

    try:
        client.chat.completions.create(model="mock", messages=[{"role": "wizard", "content": "x"}])
        raise AssertionError("a malformed request was accepted")
    except openai.BadRequestError as error:
        assert error.body["type"] == "invalid_request_error", error.body

    assert [m.id for m in client.models.list()] == ["mock-model"]


def responses_checks():
    client = openai.OpenAI(base_url=BASE + "/v1", api_key="dummy", max_retries=0, timeout=30)
    tools = [{"type": "function", "name": "bash", "parameters": TOOLS[0]["input_schema"], "strict": False}]
    first = client.responses.create(model="mock", instructions="sys", input="List the files.", tools=tools)
    assert first.output_text == "Planning.", first
    call = first.output[1]
    assert call.type == "function_call" and call.call_id == "call_1_1", call
    assert json.loads(call.arguments) == {"command": "ls -la"}, call
    assert first.usage.total_tokens > 0
    history = [
        {"role": "user", "content": "List the files."},
        {"type": "function_call", "call_id": call.call_id, "name": call.name, "arguments": call.arguments},
        {"type": "function_call_output", "call_id": call.call_id, "output": "a.txt"},
    ]
    second = client.responses.create(model="mock", input=history, tools=tools)
    assert second.output_text == "Done.", second

    kinds = [event.type for event in client.responses.create(
        model="mock", input="List the files.", tools=tools, stream=True)]
    assert kinds[:2] == ["response.created", "response.in_progress"], kinds
    assert kinds[-1] == "response.completed", kinds
    assert "response.output_text.delta" in kinds and "response.function_call_arguments.delta" in kinds, kinds

    with client.responses.stream(model="mock", input="List the files.", tools=tools) as stream:
        final = stream.get_final_response()
    assert final.output_text == "Planning." and final.output[1].arguments == call.arguments, final

    try:
        client.responses.create(model="mock", input=7)
        raise AssertionError("a malformed request was accepted")
    except openai.BadRequestError as error:
        assert error.body["type"] == "invalid_request_error", error.body


anthropic_checks()
chat_checks()
responses_checks()
print("OK")
