"""Run a command with its stderr on a pseudo-terminal (progress bars and build lines appear
only where a person could watch)."""
from __future__ import annotations

import os
import subprocess


def run_with_tty_stderr(argv: list[str], env: dict | None = None, timeout: float = 300
                        ) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of ``argv`` with stderr on a 120-column terminal."""
    import fcntl
    import pty
    import struct
    import termios
    m, s = pty.openpty()
    fcntl.ioctl(s, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=s, env=env)
    os.close(s)
    err = b""
    while True:
        try:
            d = os.read(m, 65536)
        except OSError:
            break
        if not d:
            break
        err += d
    out = p.communicate(timeout=timeout)[0]
    os.close(m)
    return p.returncode, out.decode(), err.decode(errors="replace")
