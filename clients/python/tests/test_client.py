"""The Python client against a running ``sandkeep serve``.

Set ``SANDKEEP_URL`` (e.g. ``http://127.0.0.1:8080``), ``SANDKEEP_TOKEN`` (a
token granting agent ``SANDKEEP_AGENT``, default ``alice``) and optionally
``SANDKEEP_OTHER_TOKEN`` (a token that does not grant it), then::

    python3 -m unittest discover -s clients/python/tests -v

``cargo test --release --test server python_client`` starts a server and
runs this file.
"""

from __future__ import annotations

import json
import os
import sys
import unittest
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from sandkeep_client import BashTool, Client, Event, RunResult, SandkeepError, bash_tool  # noqa: E402

URL = os.environ.get("SANDKEEP_URL", "")
TOKEN = os.environ.get("SANDKEEP_TOKEN") or None
OTHER = os.environ.get("SANDKEEP_OTHER_TOKEN") or None
AGENT = os.environ.get("SANDKEEP_AGENT", "alice")


@unittest.skipUnless(URL, "SANDKEEP_URL is not set")
class ClientTest(unittest.TestCase):
    def setUp(self) -> None:
        self.client = Client(URL, token=TOKEN, timeout=60)
        self.session = self.client.session(AGENT)

    def tearDown(self) -> None:
        try:
            self.session.complete()
        except SandkeepError as e:
            if e.status != 404:
                raise

    def test_health_and_openapi(self) -> None:
        health = self.client.health()
        self.assertEqual(health["status"], "ok")
        self.assertGreaterEqual(health["sessions"], 1)
        self.assertIn("/v1/sessions/{id}/run", self.client.openapi()["paths"])

    def test_run_output_exit_code_stdin_and_timeout(self) -> None:
        r = self.session.run("echo hi; echo oops >&2; exit 3")
        self.assertEqual(r, RunResult("hi\n", "oops\n", 3, False, False))
        self.assertFalse(r.ok)
        self.assertEqual(self.session.run("tr a-z A-Z", stdin="shout\n").stdout, "SHOUT\n")
        r = self.session.run("while true; do :; done", timeout_ms=200)
        self.assertTrue(r.timed_out)
        self.assertEqual(r.exit_code, 124)

    def test_stream_yields_chunks_then_exit(self) -> None:
        events = list(self.session.stream("echo one; echo two >&2; echo three; exit 7"))
        self.assertEqual(events[-1].kind, "exit")
        self.assertEqual(events[-1].data["exit_code"], 7)
        joined = lambda kind: "".join(e.data["data"] for e in events if e.kind == kind)  # noqa: E731
        self.assertEqual(joined("stdout"), "one\nthree\n")
        self.assertEqual(joined("stderr"), "two\n")
        self.assertTrue(all(isinstance(e, Event) for e in events))
        r = self.session.run_streamed("printf 'a\\nb\\n'; exit 2")
        self.assertEqual((r.stdout, r.exit_code), ("a\nb\n", 2))

    def test_files_round_trip(self) -> None:
        name = f"dir with space/{uuid.uuid4().hex}.txt"
        self.assertEqual(self.session.write_file(name, "milk\n"), {"path": name, "bytes": 5})
        self.assertEqual(self.session.read_file(name), b"milk\n")
        self.assertEqual(self.session.run(f"cat '{name}'").stdout, "milk\n")
        self.session.write_file("bin.dat", bytes(range(256)))
        self.assertEqual(self.session.read_file("bin.dat"), bytes(range(256)))
        self.session.remove_file(name)
        with self.assertRaises(SandkeepError) as caught:
            self.session.read_file(name)
        self.assertEqual(caught.exception.status, 404)
        with self.assertRaises(SandkeepError) as caught:
            self.session.read_file("a/../../etc/passwd")
        self.assertEqual(caught.exception.status, 400)

    def test_park_resume_and_generations(self) -> None:
        marker = uuid.uuid4().hex
        self.session.run(f"echo {marker} > kept.txt")
        parked = self.session.park()
        self.assertTrue(parked["parked"])
        first = parked["generation"]
        self.assertTrue(first)
        # The next call resumes with the same files.
        self.assertEqual(self.session.run("cat kept.txt").stdout, f"{marker}\n")
        self.session.run("echo changed > kept.txt")
        second = self.session.park()["generation"]
        self.assertNotEqual(first, second)
        gens = self.client.generations(AGENT, limit=5)
        self.assertEqual(gens[0]["id"], second)
        self.assertIn(first, [g["id"] for g in gens])
        shown = self.client.generation(AGENT, first)
        self.assertIn("kept.txt", [f["path"] for f in shown["files"]])
        self.assertEqual(self.client.generation_file(AGENT, first, "kept.txt"), f"{marker}\n".encode())
        changes = self.client.diff(AGENT, from_=first, to=second)
        self.assertIn({"change": "M", "path": "kept.txt", "size": 8}, changes)
        head = self.client.checkout(AGENT, first)
        self.assertEqual(self.client.generation_file(AGENT, head["id"], "kept.txt"), f"{marker}\n".encode())
        self.assertTrue(self.client.verify(AGENT)["ok"])
        with self.assertRaises(SandkeepError) as caught:
            self.client.generation(AGENT, "ffffffffffffffff")
        self.assertEqual(caught.exception.status, 404)

    def test_mindlog_append_read_search(self) -> None:
        word = uuid.uuid4().hex
        entry = self.client.mindlog_append(AGENT, f"remember {word}", kind="thought", session=self.session.id)
        self.assertEqual(entry["kind"], "thought")
        self.assertEqual(entry["sessionId"], self.session.id)
        self.client.mindlog_append(AGENT, "something else")
        newest = self.client.mindlog(AGENT, limit=2)
        self.assertEqual([e["text"] for e in newest], [f"remember {word}", "something else"])
        hits = self.client.mindlog(AGENT, query=word.upper())
        self.assertEqual([e["id"] for e in hits], [entry["id"]])
        older = self.client.mindlog(AGENT, limit=1, before=newest[1]["id"])
        self.assertEqual(older[0]["id"], entry["id"])
        with self.assertRaises(SandkeepError) as caught:
            self.client.mindlog_append(AGENT, "x", kind="shouted")
        self.assertEqual(caught.exception.status, 400)
        self.assertIn("unknown mindlog kind", caught.exception.message)

    def test_complete_via_context_manager(self) -> None:
        with self.client.session(AGENT) as s:
            s.run("echo done > done.txt")
        with self.assertRaises(SandkeepError) as caught:
            s.run("true")
        self.assertIn(caught.exception.status, (403, 404))
        self.assertEqual(self.client.generation_file(AGENT, "HEAD", "done.txt"), b"done\n")

    @unittest.skipUnless(TOKEN, "no SANDKEEP_TOKEN: the server has no tokens")
    def test_auth_errors(self) -> None:
        with self.assertRaises(SandkeepError) as caught:
            Client(URL).session(AGENT)
        self.assertEqual(caught.exception.status, 401)
        if OTHER:
            other = Client(URL, token=OTHER).attach(self.session.id, AGENT)
            with self.assertRaises(SandkeepError) as caught:
                other.run("true")
            self.assertEqual(caught.exception.status, 403)
            with self.assertRaises(SandkeepError) as caught:
                Client(URL, token=OTHER).mindlog(AGENT)
            self.assertEqual(caught.exception.status, 403)

    def test_unreachable_server_is_a_clear_error(self) -> None:
        with self.assertRaises(SandkeepError) as caught:
            Client("http://127.0.0.1:9", timeout=5).health()
        self.assertEqual(caught.exception.status, 0)
        self.assertIn("cannot reach", caught.exception.message)


def scripted_model(steps):
    """A model that plays ``steps``: each is a function of the messages so far
    returning an assistant message (OpenAI chat shape: ``content`` or
    ``tool_calls``). No network."""
    calls = iter(steps)

    def model(messages, tools):
        return next(calls)(messages, tools)

    return model


def agent_loop(model, tool: BashTool, prompt: str, max_steps: int = 5) -> "tuple[str, list]":
    """The loop an agent framework runs: the model asks for tool calls, each
    runs and its JSON result goes back as a ``tool`` message, until the model
    answers in text."""
    messages = [{"role": "user", "content": prompt}]
    tools = [{"type": "function", "function": tool.schema}]
    for _ in range(max_steps):
        reply = model(messages, tools)
        messages.append(reply)
        if not reply.get("tool_calls"):
            return reply["content"], messages
        for call in reply["tool_calls"]:
            assert call["function"]["name"] == tool.name
            try:
                result = tool(**json.loads(call["function"]["arguments"]))
            except ValueError as e:
                result = {"error": str(e)}
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": json.dumps(result)})
    raise AssertionError("the model did not finish")


def _call(call_id: str, arguments: dict) -> dict:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": "bash", "arguments": json.dumps(arguments)}}
        ],
    }


@unittest.skipUnless(URL, "SANDKEEP_URL is not set")
class BashToolTest(unittest.TestCase):
    def setUp(self) -> None:
        self.client = Client(URL, token=TOKEN, timeout=60)
        self.session = self.client.session(AGENT)

    def tearDown(self) -> None:
        self.session.complete()

    def test_a_scripted_model_runs_bash_in_the_session_and_reads_the_result(self) -> None:
        marker = uuid.uuid4().hex[:8]
        seen_tools = []

        def first(messages, tools):
            seen_tools.extend(tools)
            return _call("c1", {"command": f"echo {marker} > note.txt; wc -c < note.txt"})

        def second(messages, tools):
            self.assertEqual(json.loads(messages[-1]["content"])["stdout"], f"{len(marker) + 1}\n")
            return _call("c2", {"command": "cat note.txt; echo oops >&2; exit 4"})

        def third(messages, tools):
            r = json.loads(messages[-1]["content"])
            return {"role": "assistant", "content": f"the note says {r['stdout'].strip()} (exit {r['exit_code']}, {r['stderr'].strip()})"}

        tool = bash_tool(self.session)
        answer, messages = agent_loop(scripted_model([first, second, third]), tool, "write and read a note")
        self.assertEqual(answer, f"the note says {marker} (exit 4, oops)")
        self.assertEqual(self.session.read_file("note.txt"), f"{marker}\n".encode())
        self.assertEqual(seen_tools[0]["function"]["name"], "bash")
        self.assertEqual(seen_tools[0]["function"]["parameters"]["required"], ["command"])
        self.assertEqual([m["role"] for m in messages], ["user", "assistant", "tool", "assistant", "tool", "assistant"])

    def test_the_tool_validates_cuts_and_reports_refusals(self) -> None:
        tool = bash_tool(self.session, timeout_ms=300, max_output_chars=40)
        self.assertEqual(tool.name, "bash")
        with self.assertRaises(ValueError):
            tool(cmd="touch nope")
        with self.assertRaises(ValueError):
            tool(command="true", timeout_ms=0)
        self.assertEqual(self.session.run("test -e nope; echo $?").stdout, "1\n")
        self.assertTrue(tool(command="sleep 3")["timed_out"])
        self.assertEqual(tool(command="sleep 0.5; echo slept", timeout_ms=5000)["stdout"], "slept\n")
        long = tool(command="seq 1 1000")
        self.assertTrue(long["truncated"])
        self.assertTrue(long["stdout"].startswith("1\n2\n3\n"))
        self.assertTrue(long["stdout"].endswith("999\n1000\n"))
        self.assertRegex(long["stdout"], r"\[\.\.\. \d+ characters cut \.\.\.\]")
        # A session the server does not know is its refusal, raised.
        with self.assertRaises(SandkeepError) as caught:
            BashTool(self.client.attach("no-such-session", AGENT))(command="true")
        self.assertIn(caught.exception.status, (403, 404))


if __name__ == "__main__":
    unittest.main()
