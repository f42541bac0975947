"""The service's JSON shapes, as TypedDicts.

Each is the wire shape of a schema in the service's OpenAPI document (docs/openapi.json in the
repository, ``GET /v1/openapi.json`` on a running service): the keys are the service's own
(camelCase), so a value can be passed on as it is (``rendered["openai"]`` to an OpenAI client).
Keys a schema marks optional are ``total=False``; a key the service adds later is still there at
run time, only not typed.
"""

from __future__ import annotations

from typing import Any, Dict, List, Literal, TypedDict, Union

Format = Literal["text", "openai", "anthropic"]
"""A rendered form ``provide`` can ask for beside the blocks."""

AttachmentScope = Literal["message", "conversation", "pipeline"]

TraceStatus = Literal[
    "injected",
    "omitted",
    "truncated",
    "omitted-budget",
    "denied",
    "error",
    "timeout",
    "input-required",
    "stale",
    "unsupported",
]

ServerState = Literal["idle", "connecting", "connected", "disconnected", "error", "failed", "closed"]

TemplateArguments = Dict[str, Union[str, List[str]]]


# --- What a request carries ---


class _AttachmentRequired(TypedDict):
    server: str


class Attachment(_AttachmentRequired, total=False):
    """A resource attached to a message: ``uri``, or ``template`` with ``arguments``."""

    uri: str
    template: str
    arguments: TemplateArguments
    priority: int
    maxTokens: int
    bypassCache: bool
    ignoreAudience: bool
    skill: bool


class ModelCapabilities(TypedDict, total=False):
    """What the model accepts beside text (parts it cannot take are omitted, with a note)."""

    images: bool
    audio: bool
    pdf: bool


class BudgetReserve(TypedDict, total=False):
    message: int
    conversation: int
    pipeline: int


class Budget(TypedDict, total=False):
    """The turn's token budget, over the config's ``budget``."""

    maxTokens: int
    minTokens: int
    strategy: Literal["fair", "priority"]
    truncation: Literal["head", "tail", "head-tail", "relevant"]
    lineAware: bool
    safetyMargin: float
    reserve: BudgetReserve


class Scope(TypedDict, total=False):
    """Exactly one of the two: a pipeline's pins or a conversation's."""

    pipelineId: str
    conversationId: str


# --- What the service answers ---


class ErrorBody(TypedDict, total=False):
    code: str
    message: str
    field: str
    value: Any
    limit: float
    server: str
    hint: str


class _ProvenanceRequired(TypedDict):
    scope: AttachmentScope
    server: str
    uri: str
    mimeType: str
    sha256: str
    truncated: bool


class SkillInfo(TypedDict):
    name: str
    description: str


class Provenance(_ProvenanceRequired, total=False):
    originalTokens: int
    originalTokensEstimated: bool
    lastModified: str
    skill: SkillInfo


class Part(TypedDict):
    """A binary part (image, audio, document) of a resource block, base64 in ``data``."""

    kind: Literal["image", "audio", "document"]
    uri: str
    mimeType: str
    data: str
    bytes: int


class _ContextBlockRequired(TypedDict):
    kind: Literal["preamble", "instructions", "resource"]
    text: str


class ContextBlock(_ContextBlockRequired, total=False):
    """A block of context; ``provenance`` (and maybe ``parts``) on ``kind == "resource"`` only."""

    provenance: Provenance
    parts: List[Part]


class TraceError(TypedDict):
    code: str
    message: str


class Superseded(TypedDict, total=False):
    scope: AttachmentScope
    attachmentId: str


class OmittedContent(TypedDict):
    uri: str
    mimeType: str
    bytes: int
    reason: str


class _TraceEntryRequired(TypedDict):
    scope: AttachmentScope
    server: str
    uri: str
    status: TraceStatus
    tokens: int
    originalTokens: int
    bytes: int
    cache: Literal["hit", "miss", "stale", "bypass"]
    durationMs: float
    superseded: List[Superseded]
    omittedContents: List[OmittedContent]


class TraceEntry(_TraceEntryRequired, total=False):
    """One attachment's fate in a turn."""

    attachmentId: str
    template: str
    mimeType: str
    lastModified: str
    skillName: str
    originalTokensEstimated: bool
    notes: List[str]
    sha256: str
    sharedCache: Literal["hit", "miss", "unavailable", "wait-timeout"]
    reason: str
    error: TraceError
    change: Literal["new", "changed", "unchanged"]


class TraceBudget(TypedDict):
    maxTokens: int
    usedTokens: int


class _InstructionsTraceRequired(TypedDict):
    server: str
    tokens: int
    truncated: bool
    status: Literal["included", "truncated", "omitted-budget", "none", "error"]


class InstructionsTrace(_InstructionsTraceRequired, total=False):
    error: TraceError


class _InjectionTraceRequired(TypedDict):
    turnId: str
    pipelineId: str
    startedAt: str
    durationMs: float
    budget: TraceBudget
    entries: List[TraceEntry]


class InjectionTrace(_InjectionTraceRequired, total=False):
    """What a turn did with every attachment (also what ``GET /v1/traces`` streams)."""

    conversationId: str
    instructions: List[InstructionsTrace]


class Rendered(TypedDict, total=False):
    """The forms ``format`` asked for: ``text`` (one string), ``openai`` (chat messages),
    ``anthropic`` (content blocks, ``cache_control`` at the end of the stable prefix)."""

    text: str
    openai: List[Dict[str, Any]]
    anthropic: List[Dict[str, Any]]


class _ProvideResultRequired(TypedDict):
    blocks: List[ContextBlock]
    trace: InjectionTrace


class ProvideResult(_ProvideResultRequired, total=False):
    """``POST /v1/provide``: the blocks, the trace, and ``rendered`` when ``format`` was given."""

    rendered: Rendered


class _PinRequired(TypedDict):
    id: str
    addedAt: str
    scope: Scope
    server: str


class Pin(_PinRequired, total=False):
    version: str
    uri: str
    template: str
    arguments: TemplateArguments
    priority: int
    maxTokens: int
    bypassCache: bool
    ignoreAudience: bool
    skill: bool


class PinRemoved(TypedDict):
    removed: Literal[True]
    id: str


class ServerError(TypedDict):
    code: str
    message: str
    at: str


class ServerInfo(TypedDict):
    name: str
    version: str


class _ServerStatusRequired(TypedDict):
    server: str
    configuredTransport: str
    state: ServerState
    reconnectAttempts: int
    consecutiveFailures: int


class ServerStatus(_ServerStatusRequired, total=False):
    transport: str
    lastError: ServerError
    lastUsedAt: str
    connectedAt: str
    serverInfo: ServerInfo
    capabilities: Dict[str, Any]
    instructions: str
    resourceCount: int
    promptCount: int
    nextReconnectAt: str


# MCP's own listing items: the required keys typed, the rest (title, mimeType, …) as MCP has them.


class _ResourceRequired(TypedDict):
    uri: str
    name: str


class Resource(_ResourceRequired, total=False):
    title: str
    description: str
    mimeType: str
    size: int
    annotations: Dict[str, Any]


class _ResourceTemplateRequired(TypedDict):
    uriTemplate: str
    name: str


class ResourceTemplate(_ResourceTemplateRequired, total=False):
    title: str
    description: str
    mimeType: str
    annotations: Dict[str, Any]


class _PromptArgumentRequired(TypedDict):
    name: str


class PromptArgument(_PromptArgumentRequired, total=False):
    description: str
    required: bool


class _PromptRequired(TypedDict):
    name: str


class Prompt(_PromptRequired, total=False):
    title: str
    description: str
    arguments: List[PromptArgument]


class _ResourcesPageRequired(TypedDict):
    resources: List[Resource]


class ResourcesPage(_ResourcesPageRequired, total=False):
    nextCursor: str


class _TemplatesPageRequired(TypedDict):
    resourceTemplates: List[ResourceTemplate]


class TemplatesPage(_TemplatesPageRequired, total=False):
    nextCursor: str


class _PromptsPageRequired(TypedDict):
    prompts: List[Prompt]


class PromptsPage(_PromptsPageRequired, total=False):
    nextCursor: str


class _ResourceContentsRequired(TypedDict):
    uri: str


class ResourceContents(_ResourceContentsRequired, total=False):
    """``text`` or base64 ``blob``, as MCP's resources/read gives them."""

    mimeType: str
    text: str
    blob: str


class ReadTruncation(TypedDict):
    maxBytes: float
    originalBytes: float
    keptBytes: float


class _ReadResultRequired(TypedDict):
    contents: List[ResourceContents]


class ReadResult(_ReadResultRequired, total=False):
    """The MCP read result, capped (``truncation``) and redacted (``redactions``) by the library."""

    truncation: ReadTruncation
    redactions: int


class PromptMessage(TypedDict):
    role: Literal["user", "assistant"]
    content: Dict[str, Any]


class _PromptResultRequired(TypedDict):
    messages: List[PromptMessage]


class PromptResult(_PromptResultRequired, total=False):
    """MCP's ``prompts/get`` result."""

    description: str


class _CompletionRequired(TypedDict):
    values: List[str]


class Completion(_CompletionRequired, total=False):
    total: int
    hasMore: bool


class Health(TypedDict):
    status: Literal["ok"]


class _ReadyChecksRequired(TypedDict):
    store: str
    draining: bool
    servers: Dict[str, str]


class ReadyChecks(_ReadyChecksRequired, total=False):
    sharedCache: str


class Ready(TypedDict):
    """``GET /readyz``: ``status`` is ``"not-ready"`` (HTTP 503) while draining or when the store fails."""

    status: Literal["ready", "not-ready"]
    checks: ReadyChecks
