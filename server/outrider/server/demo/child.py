"""`python -m outrider.server.demo.child`: `python -m outrider.server` for the demo, which also
stops (SIGTERM, a graceful shutdown) when its stdin reaches end of file. The demo keeps the other
end of that pipe, so however the demo ends (even SIGKILL) the server does not outlive it."""

from __future__ import annotations

import os
import signal
import sys
import threading

from outrider.server.__main__ import main


def stop_when_parent_goes() -> None:
    sys.stdin.buffer.read()  # returns at end of file: the demo closed the pipe or died
    os.kill(os.getpid(), signal.SIGTERM)


if __name__ == "__main__":
    threading.Thread(target=stop_when_parent_goes, name="parent-watch", daemon=True).start()
    main()
