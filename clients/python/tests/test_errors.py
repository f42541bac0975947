"""The service's refusals as ContextServiceError with its code, status, message and field."""

from __future__ import annotations

import socket

import pytest
from conftest import Service

from mcp_context_client import ContextClient, ContextConnectionError, ContextServiceError


def test_an_unknown_pipeline_is_404_unknown_pipeline(client: ContextClient) -> None:
    with pytest.raises(ContextServiceError) as error:
        client.provide(pipeline_id="no-such-pipeline")
    assert (error.value.status, error.value.code) == (404, "UNKNOWN_PIPELINE")
    assert (error.value.field, error.value.value) == ("pipelineId", "no-such-pipeline")
    assert 'no pipeline "no-such-pipeline"' in error.value.message
    assert str(error.value).startswith("404 UNKNOWN_PIPELINE: ")


def test_a_wrong_key_is_401(service: Service) -> None:
    with ContextClient(service.url, key="not-the-key-0123456789", pipeline_id="support") as wrong:
        with pytest.raises(ContextServiceError) as error:
            wrong.provide()
    assert (error.value.status, error.value.code) == (401, "UNAUTHENTICATED")
    assert error.value.message == "the service key is not valid"
    assert error.value.field == "authorization"


def test_no_key_is_401(service: Service) -> None:
    with ContextClient(service.url, pipeline_id="support") as anonymous:
        with pytest.raises(ContextServiceError) as error:
            anonymous.list_pins(pipeline_id="support")
        assert (error.value.status, error.value.code) == (401, "UNAUTHENTICATED")
        # The probes answer without a key.
        assert anonymous.health() == {"status": "ok"}


def test_a_key_used_beyond_its_pipelines_is_403_forbidden(service: Service) -> None:
    with ContextClient(service.url, key=service.billing_key) as billing:
        assert billing.provide(pipeline_id="billing")["trace"]["pipelineId"] == "billing"
        with pytest.raises(ContextServiceError) as error:
            billing.provide(pipeline_id="support")
    assert (error.value.status, error.value.code, error.value.field) == (403, "FORBIDDEN", "pipelineId")


def test_bad_input_is_400_with_the_field_named(client: ContextClient) -> None:
    with pytest.raises(ContextServiceError) as error:
        client.provide(budget={"maxTokens": 0})
    assert (error.value.status, error.value.code, error.value.field) == (
        400,
        "INVALID_REQUEST",
        "body.budget.maxTokens",
    )

    with pytest.raises(ContextServiceError) as unknown_field:
        client.provide(budget={"maxTokns": 10})  # type: ignore[arg-type]
    assert (unknown_field.value.code, unknown_field.value.hint) == ("INVALID_REQUEST", "maxTokens")

    with pytest.raises(ContextServiceError) as bad_uri:
        client.provide(attachments=[{"server": "gitnexus", "uri": "not a uri"}])
    assert bad_uri.value.status == 400
    assert bad_uri.value.code == "INVALID_URI"


def test_the_pipeline_must_be_named_somewhere(service: Service) -> None:
    with ContextClient(service.url, key=service.key) as unbound:
        with pytest.raises(TypeError, match="name the pipeline"):
            unbound.servers()


def test_an_unreachable_service_is_a_connection_error_of_the_same_base_class() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with ContextClient(f"http://127.0.0.1:{port}", pipeline_id="support", timeout=5) as nowhere:
        with pytest.raises(ContextServiceError) as error:
            nowhere.provide()
    assert isinstance(error.value, ContextConnectionError)
    assert (error.value.code, error.value.status) == ("SERVICE_UNREACHABLE", None)
