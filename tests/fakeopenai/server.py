"""A fake OpenAI-compatible server: Chat Completions, Responses and the model list.

It is the fake Messages API's server (tests/fakeapi/server.py: threads, the
scripted queue, recording, hangs and cuts) with OpenAI's wire protocol in
place of Anthropic's: `POST /v1/chat/completions` and `POST /v1/responses`
stream the scripted replies in OpenAI's shapes, errors have OpenAI's body,
and `GET /v1/models` lists `models` (None: the server offers no list, 404).
Requests are validated strictly (validation.py) before any script is used.
"""

from __future__ import annotations

from typing import Any

from tests.fakeapi.cache import estimate_tokens
from tests.fakeapi.script import CutStream, Hang, HttpError, Reply, Response, StreamError
from tests.fakeapi.server import FakeAnthropic, NoResponseLeft, RecordedRequest, _Handler
from tests.fakeapi.sse import output_tokens

from .streams import (
    Event,
    chat_error_event,
    chat_events,
    encode,
    responses_error_event,
    responses_events,
)
from .validation import validate_chat, validate_responses

CHAT_PATH = "/v1/chat/completions"
RESPONSES_PATH = "/v1/responses"
MODELS_PATH = "/v1/models"
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "invalid_request_error",
    404: "invalid_request_error",
    429: "rate_limit_exceeded",
}


class _OpenAIHandler(_Handler):
    server: Any

    def _answer(self, app: Any, request: RecordedRequest, parse_error: str | None) -> None:
        if (
            app.api_key is not None
            and request.headers.get("authorization") != f"Bearer {app.api_key}"
        ):
            return self._error(request, 401, "invalid_request_error", "Incorrect API key provided")
        if self.command == "GET" and request.path == MODELS_PATH and app.models is not None:
            data = [{"id": name, "object": "model", "owned_by": "fake"} for name in app.models]
            return self._json(request, 200, {"object": "list", "data": data})
        validate = {CHAT_PATH: validate_chat, RESPONSES_PATH: validate_responses}.get(request.path)
        if self.command != "POST" or validate is None:
            return self._error(
                request, 404, "invalid_request_error", f"Unknown path {request.path}"
            )
        if parse_error is not None:
            return self._error(request, 400, "invalid_request_error", parse_error)
        problem = validate(request.body) if app.strict else None
        if problem is not None:
            return self._error(request, 400, "invalid_request_error", problem)
        try:
            response = app.next_response(request.body)
        except NoResponseLeft as err:
            return self._error(request, 500, "server_error", str(err))
        if isinstance(response, HttpError):
            kind = _ERROR_TYPES.get(response.status, "server_error")
            return self._error(request, response.status, kind, response.message, response.headers)
        self._reply(app, request, response)

    def _error(  # OpenAI's error body
        self,
        request: RecordedRequest,
        status: int,
        error_type: str,
        message: str,
        headers: Any = (),
    ) -> None:
        request.error = message
        payload = {"error": {"message": message, "type": error_type, "param": None, "code": None}}
        self._json(request, status, payload, headers)

    def _reply(self, app: Any, request: RecordedRequest, response: Response) -> None:
        reply = response if isinstance(response, Reply) else response.reply
        chat = request.path == CHAT_PATH
        prompt, cached = app.account(request.body, chat)
        out = output_tokens(reply)
        if chat:
            usage: dict[str, Any] = {
                "prompt_tokens": prompt,
                "completion_tokens": out,
                "total_tokens": prompt + out,
                "prompt_tokens_details": {"cached_tokens": cached},
            }
            events = chat_events(
                reply, response_id=app.new_message_id(), model=request.body["model"], usage=usage
            )
        else:
            usage = {
                "input_tokens": prompt,
                "input_tokens_details": {"cached_tokens": cached},
                "output_tokens": out,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": prompt + out,
            }
            events = responses_events(
                reply, response_id=app.new_message_id(), model=request.body["model"], usage=usage
            )
            if app.responses_done:
                events.append((None, "[DONE]"))
        self._send_stream(app, request, response, events, chat)

    def _send_stream(
        self,
        app: Any,
        request: RecordedRequest,
        response: Response,
        events: list[Event],
        chat: bool,
    ) -> None:
        headers = [
            ("Content-Type", "text/event-stream; charset=utf-8"),
            ("Transfer-Encoding", "chunked"),
            ("x-request-id", app.new_request_id()),
        ]
        self._start(app, request, response, headers)
        split = len(events)
        held_whole = isinstance(response, Hang) and response.before_headers
        if not isinstance(response, Reply) and not held_whole:
            wanted = response.after_events
            split = len(events) // 2 if wanted is None else max(0, min(wanted, len(events)))
        self._write(events[:split])
        if isinstance(response, CutStream):
            request.outcome = "cut"
            return self._abort(reset=response.reset)
        if isinstance(response, StreamError):
            error = chat_error_event if chat else responses_error_event
            self._write([error(response.error_type, response.message)])
            request.error, request.outcome = response.message, "stream_error"
        else:
            if isinstance(response, Hang) and not response.before_headers:
                self._hold(response)
            self._write(events[split:])
        self._send(b"0\r\n\r\n")

    def _write(self, events: list[Event]) -> None:
        for event in events:
            self._chunk(encode(event))


class FakeOpenAI(FakeAnthropic):
    """A local stand-in for an OpenAI-compatible server, scripted like FakeAnthropic.

    Prompt caching is automatic, as on OpenAI's servers: the messages a request
    shares with the one before it count as cached tokens.
    """

    handler = _OpenAIHandler

    def __init__(
        self,
        *args: Any,
        models: list[str] | None = None,
        responses_done: bool = False,
        strict: bool = True,
        **kwargs: Any,
    ) -> None:
        """`responses_done`: end each Responses stream with Chat Completions' `data:
        [DONE]`, as LiteLLM's proxy has done after `response.completed`. `strict=False`
        skips the request checks (validation.py), for a client the checks do not model
        (the start-up bench's Codex sends fields of OpenAI's own backend); tests keep
        them on."""
        super().__init__(*args, **kwargs)
        self.strict = strict
        self.models = models
        self.responses_done = responses_done
        self._previous: list[Any] = []

    @property
    def base_url(self) -> str:
        return f"{super().base_url}/v1"

    def account(self, body: dict[str, Any], chat: bool) -> tuple[int, int]:
        """(prompt tokens, cached tokens) for this request."""
        items = list(body["messages"] if chat else [body.get("instructions"), *body["input"]])
        shared = 0
        for before, now in zip(self._previous, items, strict=False):
            if before != now:
                break
            shared += 1
        self._previous = items
        prompt = max(estimate_tokens([body.get("tools"), items]), 1)
        cached = estimate_tokens(items[:shared]) if shared else 0
        return prompt, min(cached, prompt)

    def __repr__(self) -> str:
        return f"<FakeOpenAI pending={self.pending} requests={len(self.requests)}>"
