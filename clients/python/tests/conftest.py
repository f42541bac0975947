"""One real ``mcp-context serve`` per test session, in front of the repository's fixture servers.

The CLI is the repository's: ``node --import tsx src/cli/main.ts`` (a clone after ``npm ci``), or
the built entry in ``MCP_CONTEXT_CLI`` (``npm test`` passes the one it built, with
``MCP_CONTEXT_NODE``). The service spawns the GitNexus fixture and the workspace fixture (the one
with completions) over stdio, holds its pins in a temporary SQLite file, and has two keys: one
for every pipeline, one for ``billing`` only.
"""

from __future__ import annotations

import os
import secrets
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterator, List

import pytest

from mcp_context_client import ContextClient, start_serve

REPO = Path(__file__).resolve().parents[3]


@dataclass(frozen=True)
class Service:
    url: str
    key: str
    """May use every pipeline."""
    billing_key: str
    """May use the ``billing`` pipeline only."""


def _node() -> str:
    node = os.environ.get("MCP_CONTEXT_NODE") or shutil.which("node")
    if node is None:
        pytest.fail("no node on PATH (set MCP_CONTEXT_NODE): the tests run the real mcp-context serve")
    return node


def serve_command() -> List[str]:
    """How this repository's CLI is run: the built entry when given, else the TypeScript through tsx."""
    built = os.environ.get("MCP_CONTEXT_CLI")
    if built:
        return [_node(), built]
    return [_node(), "--import", "tsx", str(REPO / "src/cli/main.ts")]


def fixture_server(name: str) -> Dict[str, Any]:
    """A stdio server entry for one of the repository's fixtures (``gitnexus``, ``workspace``)."""
    built = os.environ.get("MCP_CONTEXT_CLI")
    if built:
        # <out>/src/cli/main.js beside <out>/fixtures/<name>/serve-stdio.js
        script = Path(built).resolve().parents[2] / "fixtures" / name / "serve-stdio.js"
        if script.exists():
            return {"command": _node(), "args": [str(script)], "cwd": str(REPO)}
    return {
        "command": _node(),
        "args": ["--import", "tsx", f"fixtures/{name}/serve-stdio.ts"],
        "cwd": str(REPO),
    }


@pytest.fixture(scope="session")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    folder = tmp_path_factory.mktemp("serve")
    key, billing_key = secrets.token_hex(16), secrets.token_hex(16)
    config = {
        "mcpServers": {"gitnexus": fixture_server("gitnexus"), "workspace": fixture_server("workspace")},
        "bindings": {
            "support": {"servers": ["gitnexus", "workspace"]},
            "billing": {"servers": ["gitnexus"]},
            # Its pipeline pins are the pin tests' own: no other test's turn reads them.
            "sandbox": {"servers": ["gitnexus"]},
        },
        "budget": {"maxTokens": 4000},
        "service": {
            "tenants": [
                {"id": "host", "keyEnv": "MCP_CONTEXT_KEY_HOST", "pipelines": ["*"]},
                {"id": "billing", "keyEnv": "MCP_CONTEXT_KEY_BILLING", "pipelines": ["billing"]},
            ],
            "auditFile": str(folder / "audit.jsonl"),
        },
    }
    environment = {**os.environ, "MCP_CONTEXT_KEY_HOST": key, "MCP_CONTEXT_KEY_BILLING": billing_key}
    running = start_serve(
        config, command=serve_command(), cwd=REPO, env=environment, store=folder / "pins.sqlite"
    )
    try:
        yield Service(url=running.url, key=key, billing_key=billing_key)
    finally:
        running.stop()


@pytest.fixture
def client(service: Service) -> Iterator[ContextClient]:
    with ContextClient(service.url, key=service.key, pipeline_id="support") as client:
        yield client
