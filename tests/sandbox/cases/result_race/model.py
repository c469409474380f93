# A background child keeps swapping result.json for a symlink while the harness writes it.
import os
import time

out = os.environ["DOJO_OUT"]
if os.fork() == 0:
    os.setsid()
    deadline = time.time() + 30
    n = 0
    while time.time() < deadline:
        tmp = os.path.join(out, f".swap{n}")
        n += 1
        try:
            os.symlink("/proc/1/environ", tmp)
            os.replace(tmp, os.path.join(out, "result.json"))
        except OSError:
            pass
