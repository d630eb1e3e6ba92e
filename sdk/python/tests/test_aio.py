"""The asyncio client against a live `agentbox serve` (AGENTBOX_URL, set by tests/sdk/run.sh)."""
import asyncio
import unittest

from agentbox import AsyncClient, AsyncSandbox, Conflict, NotFound


class AsyncSandboxTest(unittest.IsolatedAsyncioTestCase):
    async def test_context_manager_exec_stream_files(self):
        client = AsyncClient()
        self.assertTrue(await client.health())
        async with AsyncSandbox(client=client, memory="256M") as sb:
            r = await sb.exec("echo hi; exit 2")
            self.assertEqual((r.exit_code, r.stdout), (2, "hi\n"))
            events = [e async for e in sb.stream(["sh", "-c", "echo a; echo b >&2"])]
            self.assertEqual(events[-1].type, "result")
            self.assertEqual("".join(e.data for e in events if e.type == "stdout"), "a\n")
            await sb.write_file("x/y.txt", b"data")
            self.assertEqual(await sb.read_file("x/y.txt"), b"data")
            self.assertEqual([e.name for e in await sb.list_files("x")], ["y.txt"])
            self.assertIn(sb.id, [s["id"] for s in await client.list()])
        with self.assertRaises(NotFound):
            await client.inspect(sb.id)

    async def test_concurrent_execs_and_processes(self):
        async with AsyncSandbox() as sb:
            results = await asyncio.gather(*(sb.exec(["sh", "-c", f"echo {i}"]) for i in range(4)))
            self.assertEqual([r.stdout for r in results], [f"{i}\n" for i in range(4)])
            p = await sb.start_process(["sh", "-c", "echo bg; exit 5"])
            info = await p.wait(timeout=20)
            self.assertEqual(info.result.exit_code, 5)
            self.assertEqual((await p.logs()).stdout, "bg\n")

    async def test_conflict_on_taken_name(self):
        async with AsyncSandbox(name="sdk-aio-taken") as sb:
            with self.assertRaises(Conflict):
                await AsyncSandbox(name="sdk-aio-taken").start()
            self.assertEqual((await AsyncClient().sandbox("sdk-aio-taken")).id, sb.id)


if __name__ == "__main__":
    unittest.main()
