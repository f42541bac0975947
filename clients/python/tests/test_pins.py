"""Pins by scope: add, list, update, remove, and turns that read them."""

from __future__ import annotations

import uuid

import pytest

from mcp_context_client import ContextClient, ContextServiceError

CONTEXT_TEMPLATE = "gitnexus://repo/{name}/context"


def test_a_conversation_pin_round_trip(client: ContextClient) -> None:
    conversation = f"c-{uuid.uuid4()}"
    pin = client.add_pin(
        "gitnexus", template=CONTEXT_TEMPLATE, arguments={"name": "acme-shop"}, conversation_id=conversation
    )
    assert pin["scope"] == {"conversationId": conversation}
    assert pin["server"] == "gitnexus"
    assert pin["template"] == CONTEXT_TEMPLATE
    assert pin["arguments"] == {"name": "acme-shop"}
    assert [listed["id"] for listed in client.list_pins(conversation_id=conversation)] == [pin["id"]]

    updated = client.update_pin(pin["id"], conversation_id=conversation, priority=5, max_tokens=400)
    assert (updated["id"], updated["priority"], updated["maxTokens"]) == (pin["id"], 5, 400)
    assert updated["addedAt"] == pin["addedAt"]
    # None clears a field; a field left out stays.
    cleared = client.update_pin(pin["id"], conversation_id=conversation, max_tokens=None)
    assert "maxTokens" not in cleared
    assert cleared["priority"] == 5

    # The conversation's turn reads the pin (and another conversation's does not).
    turn = client.provide(conversation_id=conversation)
    assert [(entry["attachmentId"], entry["uri"], entry["scope"]) for entry in turn["trace"]["entries"]] == [
        (pin["id"], "gitnexus://repo/acme-shop/context", "conversation")
    ]
    assert "acme-shop" in turn["blocks"][-1]["text"]
    assert client.provide(conversation_id=f"c-{uuid.uuid4()}")["trace"]["entries"] == []

    assert client.remove_pin(pin["id"], conversation_id=conversation) == {"removed": True, "id": pin["id"]}
    assert client.list_pins(conversation_id=conversation) == []


def test_a_pipeline_pin_is_read_by_every_turn_of_the_pipeline_and_found_only_in_its_scope(
    client: ContextClient,
) -> None:
    pin = client.add_pin("gitnexus", uri="gitnexus://repos", pipeline_id="sandbox")
    try:
        assert pin["scope"] == {"pipelineId": "sandbox"}
        # The same target again updates that pin.
        again = client.add_pin("gitnexus", uri="gitnexus://repos", pipeline_id="sandbox", priority=3)
        assert again["id"] == pin["id"] and again["priority"] == 3
        assert [listed["id"] for listed in client.list_pins(pipeline_id="sandbox")] == [pin["id"]]

        turn = client.provide(
            pipeline_id="sandbox", conversation_id=f"c-{uuid.uuid4()}", format=["anthropic"]
        )
        (entry,) = turn["trace"]["entries"]
        assert (entry["attachmentId"], entry["scope"], entry["status"]) == (pin["id"], "pipeline", "injected")
        # The pipeline's pins are the stable prefix: the Anthropic form marks its end for caching.
        assert any(
            block.get("cache_control") == {"type": "ephemeral"} for block in turn["rendered"]["anthropic"]
        )

        with pytest.raises(ContextServiceError) as elsewhere:
            client.remove_pin(pin["id"], pipeline_id="billing")
        assert (elsewhere.value.status, elsewhere.value.code) == (404, "PIN_NOT_FOUND")
        assert (elsewhere.value.field, elsewhere.value.value) == ("id", pin["id"])
        assert len(client.list_pins(pipeline_id="sandbox")) == 1
    finally:
        client.remove_pin(pin["id"], pipeline_id="sandbox")
    assert client.list_pins(pipeline_id="sandbox") == []
    with pytest.raises(ContextServiceError) as gone:
        client.remove_pin(pin["id"], pipeline_id="sandbox")
    assert gone.value.code == "PIN_NOT_FOUND"


def test_a_pin_id_is_one_path_segment(client: ContextClient) -> None:
    with pytest.raises(ContextServiceError) as error:
        client.update_pin("a/b?c", conversation_id="c-1", priority=1)
    assert (error.value.status, error.value.code, error.value.value) == (404, "PIN_NOT_FOUND", "a/b?c")


def test_the_store_refusal_comes_back_with_its_code_and_limit(client: ContextClient) -> None:
    with pytest.raises(ContextServiceError) as error:
        client.add_pin("gitnexus", uri="gitnexus://repos", pipeline_id="sandbox", max_tokens=1)
    assert (error.value.status, error.value.code) == (400, "INVALID_ATTACHMENT")
    assert error.value.limit is not None and error.value.limit > 1


def test_a_scope_is_exactly_one_of_pipeline_and_conversation(client: ContextClient) -> None:
    with pytest.raises(TypeError, match="exactly one scope"):
        client.list_pins()
    with pytest.raises(TypeError, match="exactly one scope"):
        client.list_pins(pipeline_id="support", conversation_id="c-1")
