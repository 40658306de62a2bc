"""A small client for ``sandkeep serve``'s REST API (standard library only).

It covers sessions (create, run, streamed runs as server-sent events, files,
park, complete), the mindlog and the workspace generations::

    from sandkeep_client import Client

    client = Client("http://127.0.0.1:8080", token="tok-alice-change-me")
    with client.session("alice") as session:        # completed on exit
        print(session.run("echo hi").stdout)           # "hi\\n"
        for event in session.stream("for i in 1 2; do echo $i; done"):
            print(event.kind, event.data)              # stdout {'data': '1\\n'} ...

Every error the server answers becomes a :class:`SandkeepError` carrying the
HTTP status, the server's message and, for 429, the ``Retry-After`` seconds.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Mapping, Optional, Union

__all__ = ["Client", "Session", "RunResult", "Event", "SandkeepError", "BashTool", "bash_tool"]
__version__ = "0.1.0"


class SandkeepError(Exception):
    """A request the server refused or could not serve.

    ``status`` is the HTTP status (0 when the server could not be reached),
    ``message`` the server's ``{"error": ...}`` text and ``retry_after`` the
    seconds a 429 asks to wait.
    """

    def __init__(self, status: int, message: str, retry_after: Optional[int] = None):
        super().__init__(f"{status}: {message}" if status else message)
        self.status = status
        self.message = message
        self.retry_after = retry_after


@dataclass(frozen=True)
class RunResult:
    """A finished run: output, exit code and whether a limit cut it short."""

    stdout: str
    stderr: str
    exit_code: int
    truncated: bool = False
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        """True when the command exited 0."""
        return self.exit_code == 0


@dataclass(frozen=True)
class Event:
    """One server-sent event of a streamed run.

    ``kind`` is ``stdout`` or ``stderr`` (``data["data"]`` holds the chunk),
    ``exit`` (``data`` holds ``exit_code``, ``truncated``, ``timed_out``) or
    ``error`` (``data`` holds ``error`` and ``status``).
    """

    kind: str
    data: Dict[str, Any] = field(default_factory=dict)


def _quote_path(path: str) -> str:
    return urllib.parse.quote(path.lstrip("/"), safe="/")


class Client:
    """The server at ``base_url`` (e.g. ``http://127.0.0.1:8080``), called
    with the bearer ``token`` when one is given."""

    def __init__(self, base_url: str, token: Optional[str] = None, timeout: float = 120.0):
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout

    # ---- transport -------------------------------------------------------

    def _request(
        self,
        method: str,
        path: str,
        *,
        body: Union[bytes, None] = None,
        json_body: Any = None,
        query: Optional[Mapping[str, Any]] = None,
        accept: str = "application/json",
        content_type: Optional[str] = None,
    ):
        url = self.base_url + path
        if query:
            pairs = {k: v for k, v in query.items() if v is not None}
            if pairs:
                url += "?" + urllib.parse.urlencode(pairs)
        if json_body is not None:
            body = json.dumps(json_body).encode()
            content_type = "application/json"
        headers = {"Accept": accept}
        if content_type:
            headers["Content-Type"] = content_type
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        req = urllib.request.Request(url, data=body, method=method, headers=headers)
        try:
            return urllib.request.urlopen(req, timeout=self.timeout)
        except urllib.error.HTTPError as e:
            raise _error_of(e) from None
        except urllib.error.URLError as e:
            raise SandkeepError(0, f"cannot reach {self.base_url}: {e.reason}") from None

    def _json(self, method: str, path: str, **kwargs: Any) -> Any:
        with self._request(method, path, **kwargs) as response:
            raw = response.read()
        return json.loads(raw) if raw else None

    def _bytes(self, path: str) -> bytes:
        with self._request("GET", path, accept="application/octet-stream") as response:
            return response.read()

    # ---- server ----------------------------------------------------------

    def health(self) -> Dict[str, Any]:
        """``{status, version, backend, sessions}``; needs no token."""
        return self._json("GET", "/v1/health")

    def openapi(self) -> Dict[str, Any]:
        """The server's OpenAPI 3 document."""
        return self._json("GET", "/v1/openapi.json")

    # ---- sessions ----------------------------------------------------------

    def session(self, agent: str) -> "Session":
        """Opens a session of ``agent`` (its workspace restored)."""
        created = self._json("POST", f"/v1/agents/{_quote_path(agent)}/sessions")
        return Session(self, created["session"], created["agent"])

    def attach(self, session_id: str, agent: str) -> "Session":
        """A handle on a session opened earlier (e.g. by another process)."""
        return Session(self, session_id, agent)

    # ---- mindlog -----------------------------------------------------------

    def mindlog(
        self,
        agent: str,
        limit: int = 20,
        query: Optional[str] = None,
        before: Optional[str] = None,
    ) -> List[Dict[str, Any]]:
        """The newest ``limit`` entries, oldest first; with ``query``, those
        whose text contains it (ignoring case); with ``before`` (an entry
        id), only older ones."""
        found = self._json(
            "GET",
            f"/v1/agents/{_quote_path(agent)}/mindlog",
            query={"limit": limit, "query": query, "before": before},
        )
        return found["entries"]

    def mindlog_append(
        self, agent: str, text: str, kind: str = "note", session: Optional[str] = None
    ) -> Dict[str, Any]:
        """Appends an entry (``kind``: woke, heard, thought, said, did, note)."""
        body: Dict[str, Any] = {"kind": kind, "text": text}
        if session is not None:
            body["session"] = session
        return self._json("POST", f"/v1/agents/{_quote_path(agent)}/mindlog", json_body=body)

    # ---- generations -------------------------------------------------------

    def generations(self, agent: str, limit: int = 20) -> List[Dict[str, Any]]:
        """Kept generations of the agent's workspace, newest first."""
        found = self._json(
            "GET", f"/v1/agents/{_quote_path(agent)}/generations", query={"limit": limit}
        )
        return found["generations"]

    def generation(self, agent: str, generation: str = "HEAD") -> Dict[str, Any]:
        """One generation (an id, a unique prefix, ``HEAD`` or ``HEAD~N``) and its files."""
        return self._json(
            "GET", f"/v1/agents/{_quote_path(agent)}/generations/{_quote_path(generation)}"
        )

    def generation_file(self, agent: str, generation: str, path: str) -> bytes:
        """A file's bytes as ``generation`` holds it."""
        return self._bytes(
            f"/v1/agents/{_quote_path(agent)}/generations/{_quote_path(generation)}"
            f"/files/{_quote_path(path)}"
        )

    def checkout(self, agent: str, generation: str) -> Dict[str, Any]:
        """Makes a new head whose tree is ``generation``'s (history kept)."""
        return self._json(
            "POST",
            f"/v1/agents/{_quote_path(agent)}/generations/{_quote_path(generation)}/checkout",
        )

    def diff(
        self, agent: str, from_: Optional[str] = None, to: Optional[str] = None
    ) -> List[Dict[str, Any]]:
        """``[{change: A|M|D, path, size}]`` between two generations
        (default ``HEAD~1`` to ``HEAD``)."""
        found = self._json(
            "GET", f"/v1/agents/{_quote_path(agent)}/diff", query={"from": from_, "to": to}
        )
        return found["changes"]

    def verify(self, agent: str) -> Dict[str, Any]:
        """``{ok, damaged}``: every kept generation and blob checked."""
        return self._json("POST", f"/v1/agents/{_quote_path(agent)}/verify")


class Session:
    """One server session: runs and files in its sandbox's ``/workspace``.

    Used as a context manager it is completed (workspace kept, sandbox
    released) on exit.
    """

    def __init__(self, client: Client, session_id: str, agent: str):
        self.client = client
        self.id = session_id
        self.agent = agent

    def __repr__(self) -> str:
        return f"Session({self.id!r}, agent={self.agent!r})"

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc: Any) -> None:
        try:
            self.complete()
        except SandkeepError as e:
            if e.status not in (404, 410):
                raise

    @staticmethod
    def _run_body(command: str, timeout_ms: Optional[int], stdin: Union[str, None]) -> Dict[str, Any]:
        body: Dict[str, Any] = {"command": command}
        if timeout_ms is not None:
            body["timeout_ms"] = timeout_ms
        if stdin is not None:
            body["stdin"] = stdin
        return body

    def run(
        self, command: str, timeout_ms: Optional[int] = None, stdin: Optional[str] = None
    ) -> RunResult:
        """Runs ``command`` as ``bash -c`` in ``/workspace`` and waits for it."""
        r = self.client._json(
            "POST",
            f"/v1/sessions/{self.id}/run",
            json_body=self._run_body(command, timeout_ms, stdin),
        )
        return RunResult(
            stdout=r["stdout"],
            stderr=r["stderr"],
            exit_code=r["exit_code"],
            truncated=r["truncated"],
            timed_out=r["timed_out"],
        )

    def stream(
        self, command: str, timeout_ms: Optional[int] = None, stdin: Optional[str] = None
    ) -> Iterator[Event]:
        """Runs ``command`` and yields its output as it comes: ``stdout`` and
        ``stderr`` events, then one ``exit`` (or ``error``) event."""
        body = json.dumps(self._run_body(command, timeout_ms, stdin)).encode()
        response = self.client._request(
            "POST",
            f"/v1/sessions/{self.id}/run",
            body=body,
            content_type="application/json",
            accept="text/event-stream",
        )
        with response:
            kind, data = "", []
            for raw in response:
                line = raw.decode("utf-8").rstrip("\r\n")
                if not line:
                    if kind and data:
                        event = Event(kind, json.loads("\n".join(data)))
                        yield event
                        if kind in ("exit", "error"):
                            return
                    kind, data = "", []
                elif line.startswith(":"):
                    continue  # a keep-alive comment
                elif line.startswith("event:"):
                    kind = line[6:].strip()
                elif line.startswith("data:"):
                    data.append(line[5:].lstrip(" "))

    def run_streamed(
        self, command: str, timeout_ms: Optional[int] = None, stdin: Optional[str] = None
    ) -> RunResult:
        """Like :meth:`run`, but over the stream (the output is joined)."""
        out: Dict[str, List[str]] = {"stdout": [], "stderr": []}
        for event in self.stream(command, timeout_ms, stdin):
            if event.kind in out:
                out[event.kind].append(event.data.get("data", ""))
            elif event.kind == "exit":
                return RunResult(
                    stdout="".join(out["stdout"]),
                    stderr="".join(out["stderr"]),
                    exit_code=event.data["exit_code"],
                    truncated=event.data["truncated"],
                    timed_out=event.data["timed_out"],
                )
            elif event.kind == "error":
                raise SandkeepError(event.data.get("status", 500), event.data.get("error", ""))
        raise SandkeepError(0, "the stream ended without an exit event")

    def read_file(self, path: str) -> bytes:
        """A file's bytes (``path`` relative to ``/workspace``)."""
        return self.client._bytes(f"/v1/sessions/{self.id}/files/{_quote_path(path)}")

    def write_file(self, path: str, data: Union[bytes, str]) -> Dict[str, Any]:
        """Writes a file (parent directories created); ``{path, bytes}``."""
        if isinstance(data, str):
            data = data.encode()
        return self.client._json(
            "PUT",
            f"/v1/sessions/{self.id}/files/{_quote_path(path)}",
            body=data,
            content_type="application/octet-stream",
        )

    def remove_file(self, path: str) -> None:
        """Removes a file or directory tree (a missing one is fine)."""
        self.client._request("DELETE", f"/v1/sessions/{self.id}/files/{_quote_path(path)}").close()

    def park(self) -> Dict[str, Any]:
        """Keeps the workspace and releases the sandbox; the next call
        resumes. ``{session, parked, generation}``."""
        return self.client._json("POST", f"/v1/sessions/{self.id}/park")

    def complete(self) -> Dict[str, Any]:
        """Keeps the workspace and forgets the session.
        ``{session, completed, generation}``."""
        return self.client._json("DELETE", f"/v1/sessions/{self.id}")


_BASH_DESCRIPTION = (
    "Run a bash command in a persistent sandbox (starts in /workspace). Files written under "
    "/workspace persist across calls; within the session the shell is kept between calls "
    "(working directory, variables, functions, aliases, set/shopt options, umask; not traps "
    "or background jobs). Returns stdout, stderr and the exit code; "
    "very long output is cut and flagged as truncated."
)

_BASH_PARAMETERS: Dict[str, Any] = {
    "type": "object",
    "properties": {
        "command": {"type": "string", "description": "The script to run, as for `bash -c`."},
        "timeout_ms": {
            "type": "integer",
            "minimum": 1,
            "maximum": 3600000,
            "description": "Wall-clock limit in milliseconds.",
        },
    },
    "required": ["command"],
    "additionalProperties": False,
}


def _cut(text: str, limit: int) -> "tuple[str, bool]":
    """``text`` cut to ``limit`` characters: its head and tail, with a note between."""
    if len(text) <= limit:
        return text, False
    head = limit // 2
    tail = limit - head
    dropped = len(text) - limit
    return f"{text[:head]}\n[... {dropped} characters cut ...]\n{text[len(text) - tail:]}", True


class BashTool:
    """A ``bash`` tool for agent loops whose calls run in one session.

    ``name``, ``description`` (for the model) and ``parameters`` (the
    input's JSON Schema) describe it; calling it with the model's arguments
    (``tool(command=..., timeout_ms=...)`` or ``tool(**arguments)``) runs the
    command and returns ``{stdout, stderr, exit_code, truncated, timed_out}``,
    each stream cut to ``max_output_chars`` (head and tail kept). Arguments
    the schema refuses raise ``ValueError`` before anything runs; a request
    the server refuses raises :class:`SandkeepError`.
    """

    def __init__(
        self,
        session: Session,
        name: str = "bash",
        description: str = _BASH_DESCRIPTION,
        timeout_ms: Optional[int] = None,
        max_output_chars: int = 30000,
    ):
        self.session = session
        self.name = name
        self.description = description
        self.parameters: Dict[str, Any] = json.loads(json.dumps(_BASH_PARAMETERS))
        self.timeout_ms = timeout_ms
        self.max_output_chars = max_output_chars

    def __repr__(self) -> str:
        return f"BashTool({self.name!r}, session={self.session.id!r})"

    @property
    def schema(self) -> Dict[str, Any]:
        """``{name, description, parameters}``: the shape most tool APIs take."""
        return {"name": self.name, "description": self.description, "parameters": self.parameters}

    def __call__(self, **arguments: Any) -> Dict[str, Any]:
        unknown = sorted(set(arguments) - {"command", "timeout_ms"})
        if unknown:
            raise ValueError(f"bash tool input: unknown field {unknown[0]!r}")
        command = arguments.get("command")
        if not isinstance(command, str):
            raise ValueError("bash tool input: command must be a string")
        timeout = arguments.get("timeout_ms")
        if timeout is not None and (
            isinstance(timeout, bool) or not isinstance(timeout, int) or not 1 <= timeout <= 3600000
        ):
            raise ValueError("bash tool input: timeout_ms must be an integer from 1 to 3600000")
        # A refusal by the server raises SandkeepError, for the loop to report.
        r = self.session.run(command, timeout_ms=timeout if timeout is not None else self.timeout_ms)
        stdout, cut_out = _cut(r.stdout, self.max_output_chars)
        stderr, cut_err = _cut(r.stderr, self.max_output_chars)
        return {
            "stdout": stdout,
            "stderr": stderr,
            "exit_code": r.exit_code,
            "truncated": r.truncated or cut_out or cut_err,
            "timed_out": r.timed_out,
        }


def bash_tool(session: Session, **options: Any) -> BashTool:
    """A ready ``bash`` tool over ``session`` (see :class:`BashTool` for ``options``)."""
    return BashTool(session, **options)


def _error_of(e: urllib.error.HTTPError) -> SandkeepError:
    raw = e.read()
    try:
        message = json.loads(raw)["error"]
    except (ValueError, KeyError, TypeError):
        message = raw.decode("utf-8", "replace") or e.reason
    retry = e.headers.get("Retry-After")
    return SandkeepError(e.code, str(message), int(retry) if retry and retry.isdigit() else None)
