"""The synchronous client of ``mcp-context serve``."""

from __future__ import annotations

import json
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Union, cast
from urllib.parse import quote

import httpx

from .errors import ContextConnectionError, ContextServiceError
from .types import (
    Attachment,
    Budget,
    Completion,
    Format,
    Health,
    InjectionTrace,
    ModelCapabilities,
    Pin,
    PinRemoved,
    PromptResult,
    PromptsPage,
    ProvideResult,
    ReadResult,
    Ready,
    ResourcesPage,
    Scope,
    ServerStatus,
    TemplateArguments,
    TemplatesPage,
)


class _Unset:
    """The default of ``update_pin``'s fields: leave the pin's value as it is (``None`` clears)."""

    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()

_ERROR_KEYS = ("field", "value", "limit", "server", "hint")


class ContextClient:
    """A client of one ``mcp-context serve`` (docs/service.md).

    ``base_url`` is the service's address (``http://127.0.0.1:8080``); ``key`` its service key,
    sent as ``Authorization: Bearer <key>`` (a service without keys answers loopback callers
    without one). ``pipeline_id`` is the default pipeline of every call that takes one.
    ``timeout`` is in seconds; a turn may take the provider's ``turnDeadlineMs``, so keep it above
    that. ``http_client`` replaces the client's own ``httpx.Client`` (then ``base_url``, ``key``
    and ``timeout`` are still applied per request, and closing it is the caller's).

    Every method raises :class:`ContextServiceError` with the service's ``code`` and ``status``
    when the service refuses; results are the service's JSON as typed dicts (mcp_context_client.types).
    """

    def __init__(
        self,
        base_url: str,
        *,
        key: Optional[str] = None,
        pipeline_id: Optional[str] = None,
        timeout: float = 60.0,
        http_client: Optional[httpx.Client] = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.pipeline_id = pipeline_id
        self._headers = {"accept": "application/json"}
        if key is not None:
            self._headers["authorization"] = f"Bearer {key}"
        self._timeout = timeout
        self._owned = http_client is None
        self._http = http_client if http_client is not None else httpx.Client(timeout=timeout)

    def close(self) -> None:
        if self._owned:
            self._http.close()

    def __enter__(self) -> ContextClient:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # --- Turns ---

    def provide(
        self,
        *,
        pipeline_id: Optional[str] = None,
        conversation_id: Optional[str] = None,
        text: Optional[str] = None,
        attachments: Optional[Sequence[Attachment]] = None,
        format: Optional[Sequence[Format]] = None,
        agent_id: Optional[str] = None,
        principal: Optional[str] = None,
        turn_id: Optional[str] = None,
        model: Optional[ModelCapabilities] = None,
        budget: Optional[Budget] = None,
        bypass_cache: Optional[bool] = None,
    ) -> ProvideResult:
        """The context for the next model call (``POST /v1/provide``).

        The pipeline's and the conversation's pins and this message's ``attachments``, within the
        budget; every attachment's fate is in ``result["trace"]["entries"]``, a server that is down
        included (a turn is not an error for it). ``format`` adds ``result["rendered"]``:
        ``"text"``, ``"openai"`` (messages for chat completions) and ``"anthropic"`` (content
        blocks with ``cache_control``).
        """
        body = _provide_body(
            self._pipeline(pipeline_id),
            conversation_id,
            text,
            attachments,
            format,
            agent_id,
            principal,
            turn_id,
            model,
            budget,
            bypass_cache,
        )
        return cast(ProvideResult, self._request("POST", "/v1/provide", body=body))

    # --- Pins ---

    def list_pins(
        self, *, pipeline_id: Optional[str] = None, conversation_id: Optional[str] = None
    ) -> List[Pin]:
        """The pins of a pipeline or of a conversation (name exactly one), oldest first."""
        params = _scope_params(pipeline_id, conversation_id)
        return cast(List[Pin], self._request("GET", "/v1/pins", params=params)["pins"])

    def add_pin(
        self,
        server: str,
        *,
        uri: Optional[str] = None,
        template: Optional[str] = None,
        arguments: Optional[TemplateArguments] = None,
        pipeline_id: Optional[str] = None,
        conversation_id: Optional[str] = None,
        priority: Optional[int] = None,
        max_tokens: Optional[int] = None,
        bypass_cache: Optional[bool] = None,
        ignore_audience: Optional[bool] = None,
        skill: Optional[bool] = None,
    ) -> Pin:
        """Pins ``uri`` (or ``template`` with ``arguments``) of ``server`` to a pipeline or a
        conversation; pinning the same target again updates that pin."""
        body = _add_pin_body(
            _scope(pipeline_id, conversation_id),
            server,
            uri,
            template,
            arguments,
            priority,
            max_tokens,
            bypass_cache,
            ignore_audience,
            skill,
        )
        return cast(Pin, self._request("POST", "/v1/pins", body=body)["pin"])

    def update_pin(
        self,
        pin_id: str,
        *,
        pipeline_id: Optional[str] = None,
        conversation_id: Optional[str] = None,
        priority: Optional[int] = UNSET,
        max_tokens: Optional[int] = UNSET,
        bypass_cache: bool = UNSET,
        ignore_audience: bool = UNSET,
        skill: bool = UNSET,
    ) -> Pin:
        """Changes a pin of the scope named; a field left out stays, ``None`` clears
        ``priority`` or ``max_tokens``."""
        body = _update_pin_body(
            _scope(pipeline_id, conversation_id), priority, max_tokens, bypass_cache, ignore_audience, skill
        )
        return cast(Pin, self._request("PATCH", f"/v1/pins/{_segment(pin_id)}", body=body)["pin"])

    def remove_pin(
        self, pin_id: str, *, pipeline_id: Optional[str] = None, conversation_id: Optional[str] = None
    ) -> PinRemoved:
        """Removes a pin of the scope named (404 ``PIN_NOT_FOUND`` when that scope has no such pin)."""
        params = _scope_params(pipeline_id, conversation_id)
        return cast(PinRemoved, self._request("DELETE", f"/v1/pins/{_segment(pin_id)}", params=params))

    # --- Servers and what they offer (all through the pipeline's binding) ---

    def servers(
        self, *, pipeline_id: Optional[str] = None, agent_id: Optional[str] = None
    ) -> List[ServerStatus]:
        """The servers the pipeline is bound to, with their session state."""
        params = _compact({"pipelineId": self._pipeline(pipeline_id), "agentId": agent_id})
        return cast(List[ServerStatus], self._request("GET", "/v1/servers", params=params)["servers"])

    def list_resources(
        self,
        server: str,
        *,
        pipeline_id: Optional[str] = None,
        agent_id: Optional[str] = None,
        principal: Optional[str] = None,
        cursor: Optional[str] = None,
        all: bool = False,
    ) -> ResourcesPage:
        """One page of the server's resources (``all=True``: every page)."""
        return cast(
            ResourcesPage, self._listing(server, "resources", pipeline_id, agent_id, principal, cursor, all)
        )

    def list_templates(
        self,
        server: str,
        *,
        pipeline_id: Optional[str] = None,
        agent_id: Optional[str] = None,
        principal: Optional[str] = None,
        cursor: Optional[str] = None,
        all: bool = False,
    ) -> TemplatesPage:
        """One page of the server's resource templates (``all=True``: every page)."""
        return cast(
            TemplatesPage, self._listing(server, "templates", pipeline_id, agent_id, principal, cursor, all)
        )

    def list_prompts(
        self,
        server: str,
        *,
        pipeline_id: Optional[str] = None,
        agent_id: Optional[str] = None,
        principal: Optional[str] = None,
        cursor: Optional[str] = None,
        all: bool = False,
    ) -> PromptsPage:
        """One page of the server's prompts the binding admits (``all=True``: every page)."""
        return cast(
            PromptsPage, self._listing(server, "prompts", pipeline_id, agent_id, principal, cursor, all)
        )

    def read_resource(
        self,
        server: str,
        uri: str,
        *,
        pipeline_id: Optional[str] = None,
        agent_id: Optional[str] = None,
        principal: Optional[str] = None,
    ) -> ReadResult:
        """One resource as MCP's resources/read gives it, capped and redacted."""
        body = self._on_behalf(pipeline_id, agent_id, principal)
        body["uri"] = uri
        return cast(ReadResult, self._request("POST", f"/v1/servers/{_segment(server)}/read", body=body))

    def get_prompt(
        self,
        server: str,
        name: str,
        arguments: Optional[Mapping[str, str]] = None,
        *,
        pipeline_id: Optional[str] = None,
        agent_id: Optional[str] = None,
        principal: Optional[str] = None,
    ) -> PromptResult:
        """The prompt's messages for these ``arguments`` (MCP's prompts/get)."""
        body = self._on_behalf(pipeline_id, agent_id, principal)
        if arguments is not None:
            body["arguments"] = dict(arguments)
        path = f"/v1/servers/{_segment(server)}/prompts/{_segment(name)}"
        return cast(PromptResult, self._request("POST", path, body=body))

    def complete(
        self,
        server: str,
        argument: str,
        value: str = "",
        *,
        template: Optional[str] = None,
        prompt: Optional[str] = None,
        context: Optional[Mapping[str, str]] = None,
        pipeline_id: Optional[str] = None,
        agent_id: Optional[str] = None,
        principal: Optional[str] = None,
    ) -> Completion:
        """Values for ``argument`` of a resource ``template`` or a ``prompt`` (name one) that
        start like ``value``; ``context`` holds the arguments already chosen. A server without
        the completions capability is 422 ``CAPABILITY_MISSING``."""
        body = self._on_behalf(pipeline_id, agent_id, principal)
        body.update(_complete_fields(template, prompt, argument, value, context))
        return cast(Completion, self._request("POST", f"/v1/servers/{_segment(server)}/complete", body=body))

    # --- Traces, health, metrics ---

    def traces(self, *, pipeline_id: Optional[str] = None) -> Iterator[InjectionTrace]:
        """The traces of the turns answered from now on (``GET /v1/traces``, server-sent events),
        until the service ends the stream (it does on shutdown) or the iterator is closed.
        Only this key's pipelines and conversations are streamed. The client's ``timeout`` does
        not apply between events."""
        params = _compact({"pipelineId": pipeline_id})
        headers = {**self._headers, "accept": "text/event-stream"}
        timeout = httpx.Timeout(self._timeout, read=None)
        try:
            with self._http.stream(
                "GET", f"{self.base_url}/v1/traces", params=params, headers=headers, timeout=timeout
            ) as response:
                if response.status_code != 200:
                    response.read()
                    raise _error_of(response)
                parser = _SseParser()
                for line in response.iter_lines():
                    trace = parser.feed(line)
                    if trace is not None:
                        yield trace
        except httpx.TransportError as error:
            raise _connection_error(error) from error

    def health(self) -> Health:
        """``GET /healthz``: ``{"status": "ok"}`` while the process answers."""
        return cast(Health, self._request("GET", "/healthz"))

    def ready(self) -> Ready:
        """``GET /readyz``, the 503 answer included (``status == "not-ready"``, not an exception)."""
        return cast(Ready, self._request("GET", "/readyz", accept=(200, 503)))

    def metrics(self) -> str:
        """``GET /metrics``: the Prometheus text format."""
        response = self._send("GET", "/metrics")
        if response.status_code != 200:
            raise _error_of(response)
        return response.text

    def openapi(self) -> Dict[str, Any]:
        """The service's contract, ``GET /v1/openapi.json``."""
        return cast(Dict[str, Any], self._request("GET", "/v1/openapi.json"))

    # --- Internal helpers ---

    def _pipeline(self, pipeline_id: Optional[str]) -> str:
        chosen = pipeline_id if pipeline_id is not None else self.pipeline_id
        if chosen is None:
            raise TypeError("name the pipeline: pipeline_id=... here or ContextClient(..., pipeline_id=...)")
        return chosen

    def _on_behalf(
        self, pipeline_id: Optional[str], agent_id: Optional[str], principal: Optional[str]
    ) -> Dict[str, Any]:
        return _compact(
            {"pipelineId": self._pipeline(pipeline_id), "agentId": agent_id, "principal": principal}
        )

    def _listing(
        self,
        server: str,
        kind: str,
        pipeline_id: Optional[str],
        agent_id: Optional[str],
        principal: Optional[str],
        cursor: Optional[str],
        every: bool,
    ) -> Any:
        params = self._on_behalf(pipeline_id, agent_id, principal)
        params.update(_compact({"cursor": cursor, "all": "true" if every else None}))
        return self._request("GET", f"/v1/servers/{_segment(server)}/{kind}", params=params)

    def _send(
        self,
        method: str,
        path: str,
        *,
        params: Optional[Mapping[str, str]] = None,
        body: Optional[Mapping[str, Any]] = None,
    ) -> httpx.Response:
        try:
            return self._http.request(
                method,
                f"{self.base_url}{path}",
                params=params,
                json=body,
                headers=self._headers,
                timeout=self._timeout,
            )
        except httpx.TransportError as error:
            raise _connection_error(error) from error

    def _request(
        self,
        method: str,
        path: str,
        *,
        params: Optional[Mapping[str, str]] = None,
        body: Optional[Mapping[str, Any]] = None,
        accept: Sequence[int] = (200,),
    ) -> Any:
        response = self._send(method, path, params=params, body=body)
        return _decode(response, method, path, accept)


def _provide_body(
    pipeline_id: str,
    conversation_id: Optional[str],
    text: Optional[str],
    attachments: Optional[Sequence[Attachment]],
    format: Optional[Sequence[Format]],
    agent_id: Optional[str],
    principal: Optional[str],
    turn_id: Optional[str],
    model: Optional[ModelCapabilities],
    budget: Optional[Budget],
    bypass_cache: Optional[bool],
) -> Dict[str, Any]:
    message: Dict[str, Any] = {}
    if text is not None:
        message["text"] = text
    if attachments is not None:
        message["attachments"] = list(attachments)
    return _compact(
        {
            "pipelineId": pipeline_id,
            "agentId": agent_id,
            "conversationId": conversation_id,
            "principal": principal,
            "turnId": turn_id,
            "message": message or None,
            "model": model,
            "budget": budget,
            "bypassCache": bypass_cache,
            "format": None if format is None else list(format),
        }
    )


def _add_pin_body(
    scope: Scope,
    server: str,
    uri: Optional[str],
    template: Optional[str],
    arguments: Optional[TemplateArguments],
    priority: Optional[int],
    max_tokens: Optional[int],
    bypass_cache: Optional[bool],
    ignore_audience: Optional[bool],
    skill: Optional[bool],
) -> Dict[str, Any]:
    return _compact(
        {
            "scope": scope,
            "server": server,
            "uri": uri,
            "template": template,
            "arguments": arguments,
            "priority": priority,
            "maxTokens": max_tokens,
            "bypassCache": bypass_cache,
            "ignoreAudience": ignore_audience,
            "skill": skill,
        }
    )


def _update_pin_body(
    scope: Scope, priority: Any, max_tokens: Any, bypass_cache: Any, ignore_audience: Any, skill: Any
) -> Dict[str, Any]:
    """The fields given (``None`` sent as null: it clears); the ones left UNSET stay as they are."""
    fields = {
        "priority": priority,
        "maxTokens": max_tokens,
        "bypassCache": bypass_cache,
        "ignoreAudience": ignore_audience,
        "skill": skill,
    }
    body: Dict[str, Any] = {"scope": scope}
    body.update({name: value for name, value in fields.items() if value is not UNSET})
    return body


def _complete_fields(
    template: Optional[str],
    prompt: Optional[str],
    argument: str,
    value: str,
    context: Optional[Mapping[str, str]],
) -> Dict[str, Any]:
    return _compact(
        {
            "template": template,
            "prompt": prompt,
            "argument": argument,
            "value": value,
            "context": None if context is None else dict(context),
        }
    )


class _SseParser:
    """Server-sent events, line by line: the ``trace`` events' data, parsed."""

    def __init__(self) -> None:
        self._event = "message"
        self._data: List[str] = []

    def feed(self, line: str) -> Optional[InjectionTrace]:
        if line == "":
            event, data = self._event, self._data
            self._event, self._data = "message", []
            if event == "trace" and data:
                return cast(InjectionTrace, json.loads("\n".join(data)))
            return None
        if line.startswith(":"):
            return None
        name, _, rest = line.partition(":")
        rest = rest[1:] if rest.startswith(" ") else rest
        if name == "event":
            self._event = rest
        elif name == "data":
            self._data.append(rest)
        return None


def _decode(response: httpx.Response, method: str, path: str, accept: Sequence[int]) -> Any:
    if response.status_code not in accept:
        raise _error_of(response)
    try:
        return response.json()
    except ValueError:
        kind = response.headers.get("content-type", "no content type")
        message = f"{method} {path}: the answer is not JSON ({kind})"
        raise ContextServiceError("UNEXPECTED_RESPONSE", response.status_code, message) from None


def _compact(fields: Mapping[str, Any]) -> Dict[str, Any]:
    """The fields that were given: the service refuses unknown ones and reads a missing one as its default."""
    return {name: value for name, value in fields.items() if value is not None}


def _scope(pipeline_id: Optional[str], conversation_id: Optional[str]) -> Scope:
    if (pipeline_id is None) == (conversation_id is None):
        raise TypeError("name exactly one scope: pipeline_id=... or conversation_id=...")
    return (
        {"pipelineId": pipeline_id}
        if pipeline_id is not None
        else {"conversationId": cast(str, conversation_id)}
    )


def _scope_params(pipeline_id: Optional[str], conversation_id: Optional[str]) -> Dict[str, str]:
    return cast(Dict[str, str], dict(_scope(pipeline_id, conversation_id)))


def _segment(value: str) -> str:
    """One path segment: a server, prompt or pin id with ``/`` or ``?`` in it stays one."""
    return quote(value, safe="")


def _error_of(response: httpx.Response) -> ContextServiceError:
    """The service's ``{"error": {code, message, …}}`` as an exception; any other answer (a proxy's
    HTML page) as ``UNEXPECTED_RESPONSE`` with its status."""
    error: Union[Dict[str, Any], None] = None
    try:
        parsed = response.json()
        if isinstance(parsed, dict) and isinstance(parsed.get("error"), dict):
            error = parsed["error"]
    except ValueError:
        pass
    status = response.status_code
    if error is None or not isinstance(error.get("code"), str):
        snippet = response.text[:200]
        return ContextServiceError("UNEXPECTED_RESPONSE", status, f"HTTP {status}: {snippet}")
    details = {name: error[name] for name in _ERROR_KEYS if name in error}
    return ContextServiceError(error["code"], status, str(error.get("message", "")), **details)


def _connection_error(error: httpx.TransportError) -> ContextConnectionError:
    if isinstance(error, httpx.TimeoutException):
        return ContextConnectionError("CLIENT_TIMEOUT", f"no answer within the client's timeout: {error}")
    return ContextConnectionError("SERVICE_UNREACHABLE", f"{type(error).__name__}: {error}")
