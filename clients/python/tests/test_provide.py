"""POST /v1/provide through ContextClient.provide: blocks, trace, and the rendered forms."""

from __future__ import annotations

import uuid

from mcp_context_client import Attachment, ContextClient

REPOS: Attachment = {"server": "gitnexus", "uri": "gitnexus://repos"}


def test_a_message_attachment_comes_back_framed_with_its_provenance_and_fate(client: ContextClient) -> None:
    result = client.provide(text="which repos are indexed?", attachments=[REPOS])

    assert [block["kind"] for block in result["blocks"]] == ["preamble", "resource"]
    resource = result["blocks"][1]
    assert resource["provenance"]["uri"] == "gitnexus://repos"
    assert resource["provenance"]["mimeType"] == "text/yaml"
    assert resource["provenance"]["scope"] == "message"
    assert resource["provenance"]["truncated"] is False
    # The fixture's repository list, inside the library's frame.
    assert resource["text"].startswith('<mcp-resource server="gitnexus" uri="gitnexus://repos"')
    assert 'name: "acme-shop"' in resource["text"]
    assert 'commit: "bc7f240"' in resource["text"]
    assert "rendered" not in result

    trace = result["trace"]
    assert trace["pipelineId"] == "support"
    assert [(entry["uri"], entry["status"]) for entry in trace["entries"]] == [
        ("gitnexus://repos", "injected")
    ]
    assert 0 < trace["budget"]["usedTokens"] <= trace["budget"]["maxTokens"] == 4000


def test_format_asks_for_text_openai_and_anthropic_forms(client: ContextClient) -> None:
    result = client.provide(
        conversation_id=f"c-{uuid.uuid4()}",
        attachments=[REPOS],
        format=["text", "openai", "anthropic"],
    )
    rendered = result["rendered"]
    blocks_text = "".join(block["text"] for block in result["blocks"])
    assert rendered["text"] == blocks_text

    # OpenAI chat messages: one user message whose text parts carry the blocks.
    messages = rendered["openai"]
    assert [message["role"] for message in messages] == ["user"]
    parts = messages[0]["content"]
    assert all(part["type"] == "text" for part in parts)
    assert "".join(part["text"] for part in parts) == blocks_text

    # Anthropic content blocks.
    anthropic = rendered["anthropic"]
    assert {block["type"] for block in anthropic} == {"text"}
    assert 'name: "acme-shop"' in "".join(block["text"] for block in anthropic)


def test_only_the_forms_asked_for_are_rendered(client: ContextClient) -> None:
    result = client.provide(attachments=[REPOS], format=["openai"])
    assert set(result["rendered"]) == {"openai"}


def test_a_template_attachment_is_expanded_and_the_budget_cuts_it(client: ContextClient) -> None:
    result = client.provide(
        attachments=[
            {
                "server": "gitnexus",
                "template": "gitnexus://repo/{name}/context",
                "arguments": {"name": "acme-shop"},
            }
        ],
        budget={"maxTokens": 600},
    )
    (entry,) = result["trace"]["entries"]
    assert entry["uri"] == "gitnexus://repo/acme-shop/context"
    assert entry["template"] == "gitnexus://repo/{name}/context"
    assert entry["status"] == "truncated"
    assert entry["tokens"] < entry["originalTokens"]
    assert result["trace"]["budget"]["maxTokens"] == 600
    assert result["blocks"][-1]["provenance"]["truncated"] is True


def test_a_failing_attachment_is_a_fate_in_the_trace_not_an_error(client: ContextClient) -> None:
    result = client.provide(attachments=[REPOS, {"server": "gitnexus", "uri": "gitnexus://no-such-thing"}])
    fates = {entry["uri"]: entry for entry in result["trace"]["entries"]}
    assert fates["gitnexus://repos"]["status"] == "injected"
    assert fates["gitnexus://no-such-thing"]["status"] == "error"
    assert fates["gitnexus://no-such-thing"]["error"]["code"]
