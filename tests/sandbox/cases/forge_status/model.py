# Forge the launcher's report: write into its status pipe or its memory through /proc.
import os

report = []
parent = os.getppid()
try:
    fds = os.listdir(f"/proc/{parent}/fd")
    report.append(f"BREACH: listed launcher fds {fds}")
except OSError as e:
    report.append(f"fd list: {e.__class__.__name__}")
for fd in range(3, 40):
    try:
        with open(f"/proc/{parent}/fd/{fd}", "w") as f:
            f.write('{"started": true}\n{"rc": 0, "cpu": 0, "read": "ok"}\n{"forged": true}')
        report.append(f"BREACH: wrote launcher fd {fd}")
    except OSError:
        pass
try:
    with open(f"/proc/{parent}/mem", "r+b") as f:
        report.append("BREACH: opened launcher memory")
except OSError as e:
    report.append(f"mem: {e.__class__.__name__}")
raise RuntimeError("; ".join(report))
