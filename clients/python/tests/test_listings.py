"""Servers, listings, reads, prompts and completion, through the pipeline's binding."""

from __future__ import annotations

import pytest

from mcp_context_client import ContextClient, ContextServiceError

ISSUE_TEMPLATE = "workspace://project/{project}/issue/{issue}"


def test_servers_are_the_pipelines_own_with_their_status(client: ContextClient) -> None:
    servers = {status["server"]: status for status in client.servers()}
    assert sorted(servers) == ["gitnexus", "workspace"]
    assert servers["gitnexus"]["configuredTransport"] == "stdio"
    assert servers["gitnexus"]["state"] in ("idle", "connecting", "connected")
    assert [status["server"] for status in client.servers(pipeline_id="billing")] == ["gitnexus"]


def test_resources_and_templates(client: ContextClient) -> None:
    resources = client.list_resources("gitnexus", all=True)
    assert "gitnexus://repos" in [resource["uri"] for resource in resources["resources"]]
    assert "nextCursor" not in resources
    workspace = {resource["uri"]: resource for resource in client.list_resources("workspace")["resources"]}
    assert workspace["workspace://guide"]["title"] == "Workspace guide"
    assert workspace["workspace://guide"]["annotations"]["priority"] == 0.9

    templates = client.list_templates("gitnexus")["resourceTemplates"]
    assert "gitnexus://repo/{name}/context" in [template["uriTemplate"] for template in templates]
    assert [
        template["uriTemplate"] for template in client.list_templates("workspace")["resourceTemplates"]
    ] == [ISSUE_TEMPLATE]


def test_read_resource(client: ContextClient) -> None:
    result = client.read_resource("gitnexus", "gitnexus://repos")
    (contents,) = result["contents"]
    assert (contents["uri"], contents["mimeType"]) == ("gitnexus://repos", "text/yaml")
    assert 'name: "sample-repo"' in contents["text"]


def test_prompts_listed_and_got_with_arguments(client: ContextClient) -> None:
    assert [prompt["name"] for prompt in client.list_prompts("gitnexus")["prompts"]] == [
        "detect_impact",
        "generate_map",
    ]
    (triage,) = client.list_prompts("workspace")["prompts"]
    assert triage["name"] == "triage"
    assert triage["arguments"] == [{"name": "project", "description": "Project name", "required": True}]

    prompt = client.get_prompt("workspace", "triage", {"project": "atlas"})
    assert prompt["description"] == "Triage atlas"
    assert prompt["messages"][0] == {
        "role": "user",
        "content": {"type": "text", "text": "Triage the open issues of atlas."},
    }
    links = [
        message["content"]["uri"]
        for message in prompt["messages"]
        if message["content"]["type"] == "resource_link"
    ]
    assert links == [f"workspace://project/atlas/issue/{issue}" for issue in ("101", "102", "117")]

    scoped = client.get_prompt("gitnexus", "detect_impact", {"scope": "staged"})
    assert 'detect_changes({"scope":"staged"})' in scoped["messages"][0]["content"]["text"]


def test_completion_of_a_template_argument_and_a_prompt_argument(client: ContextClient) -> None:
    projects = client.complete("workspace", "project", "a", template=ISSUE_TEMPLATE)
    assert projects == {"values": ["atlas", "apollo", "artemis"], "total": 3, "hasMore": False}
    issues = client.complete("workspace", "issue", "1", template=ISSUE_TEMPLATE, context={"project": "atlas"})
    assert issues["values"] == ["101", "102", "117"]
    assert client.complete("workspace", "project", "z", prompt="triage")["values"] == ["zephyr"]


def test_completion_on_a_server_without_the_capability_is_422(client: ContextClient) -> None:
    with pytest.raises(ContextServiceError) as error:
        client.complete("gitnexus", "scope", "a", prompt="detect_impact")
    assert (error.value.status, error.value.code) == (422, "CAPABILITY_MISSING")


def test_a_server_the_binding_does_not_admit_is_403_policy_denied(client: ContextClient) -> None:
    with pytest.raises(ContextServiceError) as error:
        client.list_resources("workspace", pipeline_id="billing")
    assert (error.value.status, error.value.code) == (403, "POLICY_DENIED")
