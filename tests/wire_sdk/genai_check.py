"""Drive agent-eval's mock server with Google's official `google-genai` SDK.

Usage: python3 genai_check.py BASE_URL

The server's model answers the first turn with a text and a `bash` call
({"command": "ls -la"}, id toolu_1_1, sent as call_1_1) and every later turn
with "Done.". `generate_content` and `generate_content_stream` both; the
function response goes back with and without the call's id; a malformed
request gets the Gemini API's error shape. Every check raises on failure;
the script prints OK at the end.
"""

import sys

from google import genai
from google.genai import errors, types

BASE = sys.argv[1]
BASH = types.FunctionDeclaration(
    name="bash",
    description="Run a shell command.",
    parameters_json_schema={"type": "object", "properties": {"command": {"type": "string"}},
                            "required": ["command"]},
)
CONFIG = types.GenerateContentConfig(
    system_instruction="sys",
    tools=[types.Tool(function_declarations=[BASH])],
    automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
)
TASK = [types.Content(role="user", parts=[types.Part(text="List the files.")])]


def client():
    return genai.Client(api_key="dummy", http_options=types.HttpOptions(base_url=BASE, timeout=30_000))


def check_first(response):
    assert response.text == "Planning.", response
    calls = response.function_calls
    assert len(calls) == 1 and calls[0].name == "bash" and calls[0].args == {"command": "ls -la"}, calls
    assert calls[0].id == "call_1_1", calls
    assert response.usage_metadata.total_token_count > 0, response.usage_metadata
    return calls[0]


def history(call, with_id):
    reply = types.FunctionResponse(name="bash", response={"output": "a.txt"}, id=call.id if with_id else None)
    model_call = types.FunctionCall(name=call.name, args=call.args, id=call.id if with_id else None)
    return TASK + [
        types.Content(role="model", parts=[types.Part(text="Planning."), types.Part(function_call=model_call)]),
        types.Content(role="user", parts=[types.Part(function_response=reply)]),
    ]


def main():
    c = client()
    first = c.models.generate_content(model="gemini-2.5-pro", contents=TASK, config=CONFIG)
    call = check_first(first)
    for with_id in (True, False):
        second = c.models.generate_content(model="gemini-2.5-pro", contents=history(call, with_id), config=CONFIG)
        assert second.text == "Done." and not second.function_calls, second
        assert second.candidates[0].finish_reason == types.FinishReason.STOP, second

    chunks = list(c.models.generate_content_stream(model="gemini-2.5-pro", contents=TASK, config=CONFIG))
    text = "".join(ch.text or "" for ch in chunks)
    calls = [fc for ch in chunks for fc in (ch.function_calls or [])]
    assert text == "Planning.", chunks
    assert [(fc.name, fc.args, fc.id) for fc in calls] == [("bash", {"command": "ls -la"}, "call_1_1")], calls
    assert chunks[-1].candidates[0].finish_reason == types.FinishReason.STOP, chunks[-1]
    done = list(c.models.generate_content_stream(model="gemini-2.5-pro", contents=history(call, True), config=CONFIG))
    assert "".join(ch.text or "" for ch in done) == "Done.", done

    try:
        bad = [types.Content(role="bot", parts=[types.Part(text="hi")])]
        c.models.generate_content(model="gemini-2.5-pro", contents=bad, config=CONFIG)
        raise AssertionError("a request with an unknown role was answered")
    except errors.ClientError as error:
        assert error.code == 400 and error.status == "INVALID_ARGUMENT", (error.code, error.status)
    print("OK")


if __name__ == "__main__":
    main()
