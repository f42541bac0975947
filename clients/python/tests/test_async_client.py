"""AsyncContextClient: the same routes, awaited (asyncio.run, no plugin needed)."""

from __future__ import annotations

import asyncio
import uuid
from typing import List

import pytest
from conftest import Service

from mcp_context_client import AsyncContextClient, ContextServiceError, InjectionTrace

ISSUE_TEMPLATE = "workspace://project/{project}/issue/{issue}"


def test_turns_pins_listings_and_completion(service: Service) -> None:
    async def scenario() -> None:
        async with AsyncContextClient(service.url, key=service.key, pipeline_id="support") as client:
            conversation = f"c-{uuid.uuid4()}"
            pin = await client.add_pin("gitnexus", uri="gitnexus://repos", conversation_id=conversation)
            updated = await client.update_pin(pin["id"], conversation_id=conversation, priority=7)
            assert (updated["id"], updated["priority"]) == (pin["id"], 7)
            assert [listed["id"] for listed in await client.list_pins(conversation_id=conversation)] == [
                pin["id"]
            ]

            # Two turns at once on one client.
            first, second = await asyncio.gather(
                client.provide(conversation_id=conversation, format=["openai"]),
                client.provide(conversation_id=conversation, text="again"),
            )
            for turn in (first, second):
                assert [(entry["attachmentId"], entry["status"]) for entry in turn["trace"]["entries"]] == [
                    (pin["id"], "injected")
                ]
            assert 'name: "acme-shop"' in first["rendered"]["openai"][0]["content"][0]["text"]
            assert "rendered" not in second

            assert await client.remove_pin(pin["id"], conversation_id=conversation) == {
                "removed": True,
                "id": pin["id"],
            }
            assert await client.list_pins(conversation_id=conversation) == []

            assert sorted(status["server"] for status in await client.servers()) == ["gitnexus", "workspace"]
            resources = await client.list_resources("gitnexus", all=True)
            assert "gitnexus://repos" in [resource["uri"] for resource in resources["resources"]]
            templates = await client.list_templates("workspace")
            assert [template["uriTemplate"] for template in templates["resourceTemplates"]] == [
                ISSUE_TEMPLATE
            ]
            assert [prompt["name"] for prompt in (await client.list_prompts("workspace"))["prompts"]] == [
                "triage"
            ]
            prompt = await client.get_prompt("workspace", "triage", {"project": "apollo"})
            assert prompt["messages"][0]["content"]["text"] == "Triage the open issues of apollo."
            read = await client.read_resource("gitnexus", "gitnexus://repos")
            assert read["contents"][0]["mimeType"] == "text/yaml"
            completion = await client.complete("workspace", "project", "ap", template=ISSUE_TEMPLATE)
            assert completion["values"] == ["apollo"]
            assert (await client.health()) == {"status": "ok"}
            assert (await client.ready())["status"] == "ready"
            assert "mcp_context_turns_total" in await client.metrics()

    asyncio.run(scenario())


def test_errors_carry_the_code(service: Service) -> None:
    async def scenario() -> None:
        async with AsyncContextClient(service.url, key=service.key, pipeline_id="support") as client:
            with pytest.raises(ContextServiceError) as unknown:
                await client.provide(pipeline_id="no-such-pipeline")
            assert (unknown.value.status, unknown.value.code) == (404, "UNKNOWN_PIPELINE")
            with pytest.raises(ContextServiceError) as bad:
                await client.provide(budget={"maxTokens": -1})
            assert (bad.value.status, bad.value.code, bad.value.field) == (
                400,
                "INVALID_REQUEST",
                "body.budget.maxTokens",
            )
        async with AsyncContextClient(
            service.url, key="wrong-key-0123456789", pipeline_id="support"
        ) as wrong:
            with pytest.raises(ContextServiceError) as refused:
                await wrong.list_pins(pipeline_id="support")
            assert (refused.value.status, refused.value.code) == (401, "UNAUTHENTICATED")
            with pytest.raises(ContextServiceError) as stream_refused:
                async for _ in wrong.traces():
                    pass
            assert (stream_refused.value.status, stream_refused.value.code) == (401, "UNAUTHENTICATED")

    asyncio.run(scenario())


def test_the_trace_stream_as_an_async_iterator(service: Service) -> None:
    async def scenario() -> None:
        async with AsyncContextClient(service.url, key=service.key, pipeline_id="support") as client:
            conversation = f"c-{uuid.uuid4()}"
            sent: List[str] = []

            async def first_trace() -> InjectionTrace:
                async for trace in client.traces(pipeline_id="support"):
                    if trace.get("conversationId") == conversation:
                        return trace
                raise AssertionError("the stream ended")

            listening = asyncio.ensure_future(first_trace())
            # A turn answered before the stream opened is not on it: turn until one is seen.
            for _ in range(40):
                turn = await client.provide(conversation_id=conversation)
                sent.append(turn["trace"]["turnId"])
                done, _pending = await asyncio.wait({listening}, timeout=0.5)
                if done:
                    break
            trace = await asyncio.wait_for(listening, timeout=5)
            assert trace["turnId"] in sent
            assert trace["pipelineId"] == "support"

    asyncio.run(scenario())
