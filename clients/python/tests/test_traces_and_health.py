"""The live trace stream, the probes, the metrics and the contract."""

from __future__ import annotations

import queue
import threading
import time
import uuid
from typing import List

from mcp_context_client import ContextClient, InjectionTrace


def test_the_trace_stream_carries_each_answered_turn(client: ContextClient) -> None:
    conversation = f"c-{uuid.uuid4()}"
    received: queue.Queue[InjectionTrace] = queue.Queue()
    stream = client.traces(pipeline_id="support")

    def listen() -> None:
        for trace in stream:
            received.put(trace)
            if trace.get("conversationId") == conversation:
                return

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    # The stream is open once the service has answered its headers; a turn before then is not on it.
    deadline = time.monotonic() + 20
    seen: List[InjectionTrace] = []
    sent: List[str] = []
    while time.monotonic() < deadline and listener.is_alive():
        turn = client.provide(
            conversation_id=conversation, attachments=[{"server": "gitnexus", "uri": "gitnexus://repos"}]
        )
        sent.append(turn["trace"]["turnId"])
        try:
            seen.append(received.get(timeout=1))
        except queue.Empty:
            continue
    listener.join(timeout=5)
    while not received.empty():
        seen.append(received.get())
    mine = [trace for trace in seen if trace.get("conversationId") == conversation]
    assert mine, f"no trace of conversation {conversation} within 20 s (saw {len(seen)})"
    # The streamed trace is one of the turns answered (a turn sent before the stream opened is not on it).
    assert mine[0]["turnId"] in sent
    assert mine[0]["pipelineId"] == "support"
    assert [entry["uri"] for entry in mine[0]["entries"]] == ["gitnexus://repos"]
    assert mine[0]["entries"][0]["status"] == "injected"


def test_health_readiness_metrics_and_the_contract(client: ContextClient) -> None:
    assert client.health() == {"status": "ok"}
    ready = client.ready()
    assert ready["status"] == "ready"
    assert ready["checks"]["store"] == "ok"
    assert ready["checks"]["draining"] is False
    assert set(ready["checks"]["servers"]) == {"gitnexus", "workspace"}

    client.provide(attachments=[{"server": "gitnexus", "uri": "gitnexus://repos"}])
    metrics = client.metrics()
    assert "# TYPE mcp_context_turns_total counter" in metrics
    turns = [line for line in metrics.splitlines() if line.startswith("mcp_context_turns_total ")]
    assert len(turns) == 1 and int(turns[0].split()[1]) >= 1

    contract = client.openapi()
    assert contract["openapi"].startswith("3.1")
    assert "/v1/provide" in contract["paths"]
