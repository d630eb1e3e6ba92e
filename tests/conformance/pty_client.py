#!/usr/bin/env python3
"""Drives `agentbox exec -it BOX -- sh -c SCRIPT` on a PTY of its own, as a person at a terminal
would: waits for the command to print `ready`, resizes the window to 33x101, waits for `resized`,
types Ctrl-C, and prints everything the terminal showed, then `status N`. Waits for events, never
for a guess of time; the caller's timeout bounds it."""
import fcntl, os, pty, struct, sys, termios

agentbox, box, script = sys.argv[1:4]
pid, fd = pty.fork()
if pid == 0:
    os.execv(agentbox, [agentbox, "exec", "-it", box, "--", "sh", "-c", script])
seen = b""


def until(word):
    global seen
    while word not in seen:
        seen += os.read(fd, 4096)


until(b"ready")
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 33, 101, 0, 0))
os.kill(pid, 28)  # SIGWINCH, as the terminal emulator would send it
until(b"resized")
os.write(fd, b"\x03")
while True:
    try:
        data = os.read(fd, 4096)
    except OSError:
        break
    if not data:
        break
    seen += data
sys.stdout.write(seen.decode(errors="replace"))
print("status", os.waitpid(pid, 0)[1] >> 8)
