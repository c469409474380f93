# Kill the parent and try pid 1 and a few host-looking pids.
import os
import signal

report = []
for pid in [1, 2, 300, 1000]:
    try:
        os.kill(pid, signal.SIGTERM)
        report.append(f"signalled {pid}")
    except OSError as e:
        report.append(f"{pid}: {e.__class__.__name__}")
os.kill(os.getppid(), signal.SIGKILL)
raise RuntimeError("; ".join(report))
