#!/usr/bin/env python3
"""A Python chat host on `mcp-context serve`: before every model call it asks the service for
the turn's context and sends it, in the OpenAI format, ahead of the conversation.

    python3 examples/python-host.py                      # starts a serve on the bundled fixture
    python3 examples/python-host.py --url http://127.0.0.1:8080 [--key-env MCP_CONTEXT_KEY]

Without --url it starts `mcp-context serve` itself, from this clone (`node --import tsx
src/cli/main.ts`, after `npm ci`; or the built CLI in MCP_CONTEXT_CLI), with the GitNexus fixture
as a stdio server, and stops it at the end. With --url it uses a service you started, e.g. the
two commands of docs/service.md (`npx mcp-context fixture serve --port 3001 &` and `npx
mcp-context serve --config mcp-context.json --port 8080`), whose pipeline `support` is bound to
the fixture as `gitnexus`; a service with keys takes its key from the variable --key-env names.

The model is a stub that says what it was sent (no key, no network); in a host, `ask_model`
is the call to your model with the same messages. Needs httpx (`pip install ./clients/python`).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import uuid
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Dict, List

REPO = Path(__file__).resolve().parents[1]
try:
    from mcp_context_client import Attachment, ContextClient, ContextServiceError, start_serve
except ImportError:  # run from a clone without `pip install ./clients/python`
    sys.path.insert(0, str(REPO / "clients/python/src"))
    from mcp_context_client import Attachment, ContextClient, ContextServiceError, start_serve

Message = Dict[str, Any]

QUESTIONS = ["why does checkout fail?", "which modules are involved?"]
SYSTEM = "You are the support assistant of acme-shop. Answer from the attached resources."


def main() -> int:
    arguments = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    arguments.add_argument("--url", help="a running mcp-context serve (default: start one on the fixture)")
    arguments.add_argument(
        "--key-env", default="MCP_CONTEXT_KEY", help="the variable holding the service key"
    )
    arguments.add_argument("--pipeline", default="support")
    arguments.add_argument("--server", default="gitnexus", help="the pipeline's GitNexus server")
    options = arguments.parse_args()

    with ExitStack() as stack:
        url = options.url
        if url is None:
            service = stack.enter_context(start_serve(fixture_config(), command=cli_command(), cwd=REPO))
            url = service.url
            print(f"started mcp-context serve at {url} on the GitNexus fixture")
        key = os.environ.get(options.key_env) or None
        context = stack.enter_context(ContextClient(url, key=key, pipeline_id=options.pipeline))
        try:
            chat(context, options.server)
        except ContextServiceError as error:
            print(f"the context service refused: {error}", file=sys.stderr)
            return 1
    return 0


def chat(context: ContextClient, server: str) -> None:
    for status in context.servers():
        print(f"server {status['server']}: {status['state']} ({status['configuredTransport']})")

    # The user pins a repository's context to this conversation: every turn of it gets it.
    conversation = f"python-host-{uuid.uuid4().hex[:8]}"
    pin = context.add_pin(
        server,
        template="gitnexus://repo/{name}/context",
        arguments={"name": "acme-shop"},
        conversation_id=conversation,
    )
    print(f"pinned {pin['template']} (name=acme-shop) to conversation {conversation}")

    history: List[Message] = []
    try:
        for number, question in enumerate(QUESTIONS, start=1):
            # The second message also attaches the repository list, for that turn only.
            attachments: List[Attachment] = (
                [{"server": server, "uri": "gitnexus://repos"}] if number == 2 else []
            )
            turn = context.provide(
                conversation_id=conversation, text=question, attachments=attachments, format=["openai"]
            )
            history.append({"role": "user", "content": question})
            messages: List[Message] = [
                {"role": "system", "content": SYSTEM},
                *turn["rendered"]["openai"],
                *history,
            ]
            answer = ask_model(messages)
            history.append({"role": "assistant", "content": answer})
            print(f"> {question}\n{answer}")
            for entry in turn["trace"]["entries"]:
                print(f"  {entry['uri']}  {entry['status']}  {entry['tokens']} tokens ({entry['scope']})")
            roles = ", ".join(message["role"] for message in messages)
            print(f"  sent {len(messages)} messages: {roles}")
    finally:
        context.remove_pin(pin["id"], conversation_id=conversation)


def ask_model(messages: List[Message]) -> str:
    """A stub model: says how much context it was sent and what it was asked."""
    context = "".join(text for text in map(text_of, messages) if "<mcp-resource " in text)
    resources = context.count("<mcp-resource ")
    question = text_of(messages[-1])
    return f"(stub model) {resources} resources in {len(context)} characters of context; asked: {question}"


def text_of(message: Message) -> str:
    content = message["content"]
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content if part.get("type") == "text")


def cli_command() -> List[str]:
    node = os.environ.get("MCP_CONTEXT_NODE") or shutil.which("node") or "node"
    built = os.environ.get("MCP_CONTEXT_CLI")
    return [node, built] if built else [node, "--import", "tsx", str(REPO / "src/cli/main.ts")]


def fixture_config() -> Dict[str, Any]:
    """The GitNexus fixture as a stdio server of the service, bound to pipeline `support`."""
    node = os.environ.get("MCP_CONTEXT_NODE") or shutil.which("node") or "node"
    built = os.environ.get("MCP_CONTEXT_CLI")
    script = Path(built).resolve().parents[2] / "fixtures/gitnexus/serve-stdio.js" if built else None
    if script is not None and script.exists():
        gitnexus = {"command": node, "args": [str(script)], "cwd": str(REPO)}
    else:
        gitnexus = {
            "command": node,
            "args": ["--import", "tsx", "fixtures/gitnexus/serve-stdio.ts"],
            "cwd": str(REPO),
        }
    return {
        "mcpServers": {"gitnexus": gitnexus},
        "bindings": {"support": {"servers": ["gitnexus"]}},
        "budget": {"maxTokens": 4000},
    }


if __name__ == "__main__":
    sys.exit(main())
