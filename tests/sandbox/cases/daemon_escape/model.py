# Double-fork a daemon in a new session that should outlive the grading, then return normally.
import os
import time

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        with open("/tmp/daemon_alive", "w") as f:
            f.write(str(os.getpid()))
        while True:
            time.sleep(1)
    os._exit(0)
time.sleep(0.2)
VALUE = "daemon started"
