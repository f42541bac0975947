"""The asyncio client of ``mcp-context serve``: the same methods as :class:`ContextClient`, awaited."""

from __future__ import annotations

from typing import Any, AsyncIterator, Dict, List, Mapping, Optional, Sequence, cast

import httpx

from .client import (
    UNSET,
    _add_pin_body,
    _compact,
    _complete_fields,
    _connection_error,
    _decode,
    _error_of,
    _provide_body,
    _scope,
    _scope_params,
    _segment,
    _SseParser,
    _update_pin_body,
)
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
    ServerStatus,
    TemplateArguments,
    TemplatesPage,
)


class AsyncContextClient:
    """:class:`ContextClient` for asyncio hosts (FastAPI, aiohttp): each method is a coroutine
    with the same arguments and result; ``traces()`` is an async iterator. ``http_client`` is an
    ``httpx.AsyncClient``; ``async with`` (or ``await aclose()``) closes the client's own."""

    def __init__(
        self,
        base_url: str,
        *,
        key: Optional[str] = None,
        pipeline_id: Optional[str] = None,
        timeout: float = 60.0,
        http_client: Optional[httpx.AsyncClient] = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.pipeline_id = pipeline_id
        self._headers = {"accept": "application/json"}
        if key is not None:
            self._headers["authorization"] = f"Bearer {key}"
        self._timeout = timeout
        self._owned = http_client is None
        self._http = http_client if http_client is not None else httpx.AsyncClient(timeout=timeout)

    async def aclose(self) -> None:
        if self._owned:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncContextClient:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.aclose()

    async def provide(
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
        """See :meth:`ContextClient.provide`."""
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
        return cast(ProvideResult, await self._request("POST", "/v1/provide", body=body))

    async def list_pins(
        self, *, pipeline_id: Optional[str] = None, conversation_id: Optional[str] = None
    ) -> List[Pin]:
        params = _scope_params(pipeline_id, conversation_id)
        return cast(List[Pin], (await self._request("GET", "/v1/pins", params=params))["pins"])

    async def add_pin(
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
        return cast(Pin, (await self._request("POST", "/v1/pins", body=body))["pin"])

    async def update_pin(
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
        body = _update_pin_body(
            _scope(pipeline_id, conversation_id), priority, max_tokens, bypass_cache, ignore_audience, skill
        )
        return cast(Pin, (await self._request("PATCH", f"/v1/pins/{_segment(pin_id)}", body=body))["pin"])

    async def remove_pin(
        self, pin_id: str, *, pipeline_id: Optional[str] = None, conversation_id: Optional[str] = None
    ) -> PinRemoved:
        params = _scope_params(pipeline_id, conversation_id)
        path = f"/v1/pins/{_segment(pin_id)}"
        return cast(PinRemoved, await self._request("DELETE", path, params=params))

    async def servers(
        self, *, pipeline_id: Optional[str] = None, agent_id: Optional[str] = None
    ) -> List[ServerStatus]:
        params = _compact({"pipelineId": self._pipeline(pipeline_id), "agentId": agent_id})
        return cast(List[ServerStatus], (await self._request("GET", "/v1/servers", params=params))["servers"])

    async def list_resources(
        self,
        server: str,
        *,
        pipeline_id: Optional[str] = None,
        agent_id: Optional[str] = None,
        principal: Optional[str] = None,
        cursor: Optional[str] = None,
        all: bool = False,
    ) -> ResourcesPage:
        page = await self._listing(server, "resources", pipeline_id, agent_id, principal, cursor, all)
        return cast(ResourcesPage, page)

    async def list_templates(
        self,
        server: str,
        *,
        pipeline_id: Optional[str] = None,
        agent_id: Optional[str] = None,
        principal: Optional[str] = None,
        cursor: Optional[str] = None,
        all: bool = False,
    ) -> TemplatesPage:
        page = await self._listing(server, "templates", pipeline_id, agent_id, principal, cursor, all)
        return cast(TemplatesPage, page)

    async def list_prompts(
        self,
        server: str,
        *,
        pipeline_id: Optional[str] = None,
        agent_id: Optional[str] = None,
        principal: Optional[str] = None,
        cursor: Optional[str] = None,
        all: bool = False,
    ) -> PromptsPage:
        page = await self._listing(server, "prompts", pipeline_id, agent_id, principal, cursor, all)
        return cast(PromptsPage, page)

    async def read_resource(
        self,
        server: str,
        uri: str,
        *,
        pipeline_id: Optional[str] = None,
        agent_id: Optional[str] = None,
        principal: Optional[str] = None,
    ) -> ReadResult:
        body = self._on_behalf(pipeline_id, agent_id, principal)
        body["uri"] = uri
        return cast(
            ReadResult, await self._request("POST", f"/v1/servers/{_segment(server)}/read", body=body)
        )

    async def get_prompt(
        self,
        server: str,
        name: str,
        arguments: Optional[Mapping[str, str]] = None,
        *,
        pipeline_id: Optional[str] = None,
        agent_id: Optional[str] = None,
        principal: Optional[str] = None,
    ) -> PromptResult:
        body = self._on_behalf(pipeline_id, agent_id, principal)
        if arguments is not None:
            body["arguments"] = dict(arguments)
        path = f"/v1/servers/{_segment(server)}/prompts/{_segment(name)}"
        return cast(PromptResult, await self._request("POST", path, body=body))

    async def complete(
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
        body = self._on_behalf(pipeline_id, agent_id, principal)
        body.update(_complete_fields(template, prompt, argument, value, context))
        path = f"/v1/servers/{_segment(server)}/complete"
        return cast(Completion, await self._request("POST", path, body=body))

    async def traces(self, *, pipeline_id: Optional[str] = None) -> AsyncIterator[InjectionTrace]:
        """See :meth:`ContextClient.traces`."""
        params = _compact({"pipelineId": pipeline_id})
        headers = {**self._headers, "accept": "text/event-stream"}
        timeout = httpx.Timeout(self._timeout, read=None)
        try:
            async with self._http.stream(
                "GET", f"{self.base_url}/v1/traces", params=params, headers=headers, timeout=timeout
            ) as response:
                if response.status_code != 200:
                    await response.aread()
                    raise _error_of(response)
                parser = _SseParser()
                async for line in response.aiter_lines():
                    trace = parser.feed(line)
                    if trace is not None:
                        yield trace
        except httpx.TransportError as error:
            raise _connection_error(error) from error

    async def health(self) -> Health:
        return cast(Health, await self._request("GET", "/healthz"))

    async def ready(self) -> Ready:
        return cast(Ready, await self._request("GET", "/readyz", accept=(200, 503)))

    async def metrics(self) -> str:
        response = await self._send("GET", "/metrics")
        if response.status_code != 200:
            raise _error_of(response)
        return response.text

    async def openapi(self) -> Dict[str, Any]:
        return cast(Dict[str, Any], await self._request("GET", "/v1/openapi.json"))

    # --- Internal helpers ---

    def _pipeline(self, pipeline_id: Optional[str]) -> str:
        chosen = pipeline_id if pipeline_id is not None else self.pipeline_id
        if chosen is None:
            raise TypeError(
                "name the pipeline: pipeline_id=... here or AsyncContextClient(..., pipeline_id=...)"
            )
        return chosen

    def _on_behalf(
        self, pipeline_id: Optional[str], agent_id: Optional[str], principal: Optional[str]
    ) -> Dict[str, Any]:
        return _compact(
            {"pipelineId": self._pipeline(pipeline_id), "agentId": agent_id, "principal": principal}
        )

    async def _listing(
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
        return await self._request("GET", f"/v1/servers/{_segment(server)}/{kind}", params=params)

    async def _send(
        self,
        method: str,
        path: str,
        *,
        params: Optional[Mapping[str, str]] = None,
        body: Optional[Mapping[str, Any]] = None,
    ) -> httpx.Response:
        try:
            return await self._http.request(
                method,
                f"{self.base_url}{path}",
                params=params,
                json=body,
                headers=self._headers,
                timeout=self._timeout,
            )
        except httpx.TransportError as error:
            raise _connection_error(error) from error

    async def _request(
        self,
        method: str,
        path: str,
        *,
        params: Optional[Mapping[str, str]] = None,
        body: Optional[Mapping[str, Any]] = None,
        accept: Sequence[int] = (200,),
    ) -> Any:
        response = await self._send(method, path, params=params, body=body)
        return _decode(response, method, path, accept)
