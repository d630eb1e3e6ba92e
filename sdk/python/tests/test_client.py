"""The blocking client against a live `agentbox serve` (AGENTBOX_URL, set by tests/sdk/run.sh)."""
import io
import os
import tarfile
import unittest

from agentbox import (AgentboxError, Client, Conflict, ExecResult, InvalidArgument, NotFound,
                      PermissionDenied, Sandbox, Unavailable)


class SandboxTest(unittest.TestCase):
    def test_context_manager_exec_and_removal(self):
        client = Client()
        with Sandbox(client=client, memory="256M", timeout=30) as sb:
            result = sb.exec(["sh", "-c", "echo hi; echo err >&2; exit 3"])
            self.assertIsInstance(result, ExecResult)
            self.assertEqual((result.exit_code, result.reason), (3, "exited"))
            self.assertEqual(result.network, {"egress": False, "connections": []})
            self.assertEqual((result.stdout, result.stderr), ("hi\n", "err\n"))
            self.assertFalse(result.ok)
            self.assertIn(sb.id, [s["id"] for s in client.list()])
            self.assertEqual(sb.inspect()["policy"]["memory"], 256 << 20)
        self.assertNotIn(sb.id, [s["id"] for s in client.list()])
        with self.assertRaises(NotFound) as caught:
            client.inspect(sb.id)
        self.assertEqual((caught.exception.code, caught.exception.status), ("not_found", 404))

    def test_string_command_env_cwd_stdin_timeout(self):
        with Client().create() as sb:
            r = sb.exec("echo $A $(pwd); cat", env={"A": "1"}, cwd="/tmp", stdin="in")
            self.assertEqual(r.stdout, "1 /tmp\nin")
            r = sb.exec(["sleep", "10"], timeout=0.5)
            self.assertEqual((r.exit_code, r.reason), (124, "timeout"))
            self.assertIn("timeout", r.limits_hit)

    def test_stream(self):
        with Sandbox() as sb:
            events = list(sb.stream(["sh", "-c", "echo one; echo two >&2; echo three"]))
            self.assertEqual(events[-1].type, "result")
            self.assertEqual(events[-1].result.exit_code, 0)
            out = "".join(e.data for e in events if e.type == "stdout")
            err = "".join(e.data for e in events if e.type == "stderr")
            self.assertEqual((out, err), ("one\nthree\n", "two\n"))

    def test_files_and_archives(self):
        with Sandbox() as sb:
            self.assertEqual(sb.write_file("src/a.txt", "hello\n"), 6)
            self.assertEqual(sb.read_text("src/a.txt"), "hello\n")
            sb.edit_file("src/a.txt", "hello", "bye")
            self.assertEqual(sb.read_file("/workspace/src/a.txt"), b"bye\n")
            self.assertEqual([e.name for e in sb.list_files("src")], ["a.txt"])
            tar = sb.download("src")
            with tarfile.open(fileobj=io.BytesIO(tar)) as t:
                self.assertEqual(sorted(t.getnames()), ["src", "src/a.txt"])
            buf = io.BytesIO()
            with tarfile.open(fileobj=buf, mode="w") as t:
                data = b"print(1)\n"
                info = tarfile.TarInfo("pkg/m.py")
                info.size = len(data)
                t.addfile(info, io.BytesIO(data))
            self.assertEqual(sb.upload("/workspace", buf.getvalue())["files"], 1)
            self.assertEqual(sb.read_text("pkg/m.py"), "print(1)\n")
            sb.remove_file("src", recursive=True)
            with self.assertRaises(NotFound):
                sb.read_file("src/a.txt")
            with self.assertRaises(PermissionDenied):
                sb.read_file("../etc/passwd")

    def test_errors_carry_the_api_codes(self):
        with Sandbox() as sb:
            with self.assertRaises(InvalidArgument) as caught:
                sb.exec([])
            self.assertEqual(caught.exception.code, "invalid_argument")
            with self.assertRaises(InvalidArgument):
                Sandbox(client=sb.client, memory="lots")
            name = "sdk-py-" + sb.id
            with Sandbox(name=name) as named:
                with self.assertRaises(Conflict) as taken:
                    Sandbox(name=name)
                self.assertEqual(taken.exception.code, "already_exists")
                self.assertEqual(Client().sandbox(name).id, named.id)

    def test_busy_remove_is_a_conflict_then_force(self):
        sb = Sandbox()
        process = sb.start(["sleep", "30"])
        self.assertEqual(process.info.state, "running")
        # A running exec makes it busy (a background process does not): hold one open.
        stream = sb.stream(["sh", "-c", "echo go; sleep 30"])
        self.assertEqual(next(stream).data, "go\n")
        with self.assertRaises(Conflict) as busy:
            sb.remove()
        self.assertEqual((busy.exception.code, busy.exception.status), ("failed_precondition", 409))
        self.assertIn("force=true", busy.exception.message)
        sb.remove(force=True)
        stream.close()

    def test_background_process(self):
        with Sandbox() as sb:
            p = sb.start(["sh", "-c", "read line; echo got $line; exit 7"], interactive=True)
            p.write_stdin("x\n", close=True)
            info = p.wait(timeout=20)
            self.assertEqual((info.state, info.result.exit_code), ("exited", 7))
            self.assertEqual(p.logs().stdout, "got x\n")
            self.assertEqual([q.id for q in sb.processes()], [p.id])
            q = sb.start("sleep 30")
            self.assertEqual(q.kill("KILL").id, q.id)
            self.assertEqual(q.wait(timeout=20).result.reason, "signaled")

    def test_unreachable_server(self):
        with self.assertRaises(Unavailable) as caught:
            Client("unix:/nonexistent/agentbox.sock").list()
        self.assertIsInstance(caught.exception, AgentboxError)


if __name__ == "__main__":
    unittest.main()
