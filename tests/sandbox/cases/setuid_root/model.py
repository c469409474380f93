# Become root by any means at hand.
import os

report = []
for name, call in [("setuid", lambda: os.setuid(0)), ("setgid", lambda: os.setgid(0)),
                   ("setresuid", lambda: os.setresuid(0, 0, 0)), ("seteuid", lambda: os.seteuid(0))]:
    try:
        call()
        report.append(f"BREACH: {name} worked")
    except OSError as e:
        report.append(f"{name}: {e.__class__.__name__}")
for tool in ["/usr/bin/sudo", "/usr/bin/su", "/bin/mount", "/usr/bin/newuidmap"]:
    report.append(f"{tool}: {'present' if os.path.exists(tool) else 'absent'}")
report.append(f"uid={os.getuid()} euid={os.geteuid()}")
raise RuntimeError("; ".join(report))
