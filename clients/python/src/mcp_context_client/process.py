"""Running ``mcp-context serve`` as a child process of a Python program (tests, local development)."""

from __future__ import annotations

import json
import queue
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import IO, Any, Mapping, Optional, Sequence, Union

import httpx

DEFAULT_COMMAND = ("npx", "--no-install", "mcp-context")
"""The CLI of the npm package, installed in the current folder's node_modules."""


class ServeProcess:
    """A running ``mcp-context serve``: ``url`` answers; ``stop()`` drains it (SIGTERM) and waits."""

    def __init__(
        self, process: subprocess.Popen[bytes], url: str, stderr_path: Path, temp: Optional[Path]
    ) -> None:
        self.process = process
        self.url = url
        self._stderr_path = stderr_path
        self._temp = temp

    @property
    def stderr(self) -> str:
        """What the service wrote to stderr so far (refusals are audited there without an auditFile)."""
        try:
            return self._stderr_path.read_text(errors="replace")
        except OSError:
            return ""

    def stop(self, timeout: float = 30.0) -> Optional[int]:
        """SIGTERM (the service drains its turns in flight, closes its sessions and exits 0), then
        SIGKILL after ``timeout`` seconds; the exit code."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self._temp is not None:
            shutil.rmtree(self._temp, ignore_errors=True)
            self._temp = None
        return self.process.returncode

    def __enter__(self) -> ServeProcess:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()


def start_serve(
    config: Union[Mapping[str, Any], str, Path],
    *,
    command: Sequence[str] = DEFAULT_COMMAND,
    cwd: Union[str, Path, None] = None,
    env: Optional[Mapping[str, str]] = None,
    host: Optional[str] = None,
    port: int = 0,
    store: Union[str, Path, None] = None,
    startup_timeout: float = 90.0,
) -> ServeProcess:
    """Starts ``<command> serve --config … --port 0 --json`` and waits until ``/readyz`` answers 200.

    ``config`` is a config file's path, or its content (written to a temporary file removed by
    ``stop()``). ``command`` runs the CLI (default ``npx --no-install mcp-context``; in a clone of
    the repository ``node --import tsx src/cli/main.ts`` with ``cwd`` the clone). ``store`` is the
    SQLite file for pins (``--store``; default: the config's, else a temporary file). Service keys
    go in ``env`` under the names the config's ``keyEnv`` gives, never on the command line.
    """
    temp = Path(tempfile.mkdtemp(prefix="mcp-context-serve-"))
    if isinstance(config, (str, Path)):
        config_path = Path(config).resolve()
    else:
        config_path = temp / "mcp-context.json"
        config_path.write_text(json.dumps(config))
        if store is None and "store" not in config and "postgres" not in config:
            store = temp / "pins.sqlite"
    arguments = [*command, "serve", "--config", str(config_path), "--port", str(port), "--json"]
    if host is not None:
        arguments += ["--host", host]
    if store is not None:
        arguments += ["--store", str(store)]
    stderr_path = temp / "stderr.log"
    with open(stderr_path, "wb") as stderr:
        process = subprocess.Popen(
            arguments,
            cwd=None if cwd is None else str(cwd),
            env=None if env is None else dict(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=stderr,
        )
    running = ServeProcess(process, "", stderr_path, temp)
    try:
        running.url = _read_url(process, startup_timeout, running)
        _wait_ready(running, startup_timeout)
    except BaseException:
        running.stop(timeout=5)
        raise
    return running


def _read_url(process: subprocess.Popen[bytes], timeout: float, running: ServeProcess) -> str:
    """The ``{"url": …}`` line ``--json`` prints once listening; the rest of stdout is drained."""
    lines: queue.Queue[bytes] = queue.Queue()

    def drain(stream: IO[bytes]) -> None:
        for line in stream:
            lines.put(line)
        lines.put(b"")

    assert process.stdout is not None
    threading.Thread(target=drain, args=(process.stdout,), daemon=True).start()
    try:
        first = lines.get(timeout=timeout)
    except queue.Empty:
        raise RuntimeError(
            f"mcp-context serve printed no URL within {timeout} s; stderr:\n{running.stderr}"
        ) from None
    if first == b"":
        process.wait()
        raise RuntimeError(
            f"mcp-context serve exited with code {process.returncode}; stderr:\n{running.stderr}"
        )
    return str(json.loads(first)["url"])


def _wait_ready(running: ServeProcess, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    last = "no answer"
    while time.monotonic() < deadline:
        if running.process.poll() is not None:
            raise RuntimeError(
                f"mcp-context serve exited with code {running.process.returncode}; stderr:\n{running.stderr}"
            )
        try:
            response = httpx.get(f"{running.url}/readyz", timeout=5.0)
            if response.status_code == 200:
                return
            last = f"{response.status_code} {response.text}"
        except httpx.TransportError as error:
            last = str(error)
        time.sleep(0.1)
    raise RuntimeError(f"mcp-context serve at {running.url} was not ready within {timeout} s: {last}")


__all__ = ["DEFAULT_COMMAND", "ServeProcess", "start_serve"]
