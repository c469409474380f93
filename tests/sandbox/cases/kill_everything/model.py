# Send SIGKILL to every process we are allowed to signal.
import os
import signal

os.kill(-1, signal.SIGKILL)
