"""Runs a command on a pseudo-terminal, as a user's terminal would: what arrives on this script's
stdin is typed into the terminal (Tab, Ctrl-C and Ctrl-D included, the terminal turns Ctrl-C into
SIGINT for the command), what the command writes comes out on stdout. Exits with the command's code.

usage: python3 pty_relay.py COMMAND [ARGS...]
"""
import fcntl
import os
import pty
import select
import signal
import struct
import sys
import termios

pid, master = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])

fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
stdin_open = True
while True:
    watched = [master] + ([0] if stdin_open else [])
    readable, _, _ = select.select(watched, [], [], 1.0)
    if master in readable:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        os.write(1, data)
    if stdin_open and 0 in readable:
        data = os.read(0, 4096)
        if data:
            os.write(master, data)
        else:
            stdin_open = False  # the test is done typing: the terminal hangs up
            os.kill(pid, signal.SIGHUP)
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
