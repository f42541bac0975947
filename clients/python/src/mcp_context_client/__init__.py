"""A typed Python client of ``mcp-context serve``: pinned, budgeted, traced MCP context for a host
in any language (docs/service.md in the mcp-resource-context repository)."""

from .async_client import AsyncContextClient
from .client import UNSET, ContextClient
from .errors import ContextConnectionError, ContextServiceError
from .process import ServeProcess, start_serve
from .types import (
    Attachment,
    Budget,
    Completion,
    ContextBlock,
    Format,
    Health,
    InjectionTrace,
    ModelCapabilities,
    Pin,
    PinRemoved,
    Prompt,
    PromptResult,
    PromptsPage,
    ProvideResult,
    ReadResult,
    Ready,
    Rendered,
    Resource,
    ResourcesPage,
    ResourceTemplate,
    Scope,
    ServerStatus,
    TemplatesPage,
    TraceEntry,
)

__version__ = "0.1.0"

__all__ = [
    "UNSET",
    "AsyncContextClient",
    "Attachment",
    "Budget",
    "Completion",
    "ContextBlock",
    "ContextClient",
    "ContextConnectionError",
    "ContextServiceError",
    "Format",
    "Health",
    "InjectionTrace",
    "ModelCapabilities",
    "Pin",
    "PinRemoved",
    "Prompt",
    "PromptResult",
    "PromptsPage",
    "ProvideResult",
    "ReadResult",
    "Ready",
    "Rendered",
    "Resource",
    "ResourceTemplate",
    "ResourcesPage",
    "Scope",
    "ServeProcess",
    "ServerStatus",
    "TemplatesPage",
    "TraceEntry",
    "start_serve",
]
