"""Errors: the service's typed JSON errors, as exceptions."""

from __future__ import annotations

from typing import Any, Optional


class ContextServiceError(Exception):
    """A request the service refused or could not answer.

    ``code`` is the service's error code (docs/errors.md: ``UNKNOWN_PIPELINE``,
    ``UNAUTHENTICATED``, ``INVALID_REQUEST``, …) and ``status`` its HTTP status; ``field``,
    ``value``, ``limit``, ``server`` and ``hint`` are there when the service gave them (``hint``:
    the nearest known field for an unknown one). Catch this one class for every failure of the
    client, the unreachable service included (:class:`ContextConnectionError`).
    """

    def __init__(
        self,
        code: str,
        status: Optional[int],
        message: str,
        *,
        field: Optional[str] = None,
        value: Any = None,
        limit: Optional[float] = None,
        server: Optional[str] = None,
        hint: Optional[str] = None,
    ) -> None:
        super().__init__(f"{code}: {message}" if status is None else f"{status} {code}: {message}")
        self.code = code
        self.status = status
        self.message = message
        self.field = field
        self.value = value
        self.limit = limit
        self.server = server
        self.hint = hint

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, status={self.status!r}, message={self.message!r})"


class ContextConnectionError(ContextServiceError):
    """The service did not answer: refused connection, a DNS failure, or the client's own timeout.

    Its ``code`` is ``SERVICE_UNREACHABLE`` (or ``CLIENT_TIMEOUT``), a code of this client's, not
    the service's, and ``status`` is None.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(code, None, message)
