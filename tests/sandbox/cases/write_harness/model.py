# Tamper with the trusted harness, the input and the candidate's own read-only files.
import os

report = []
targets = [os.path.join(os.environ["DOJO_HARNESS_DIR"], "main.py"),
           os.path.join(os.environ["DOJO_HARNESS_DIR"], "dojo_escape_canary.txt"),
           os.environ["DOJO_INPUT"],
           os.path.join(os.environ["DOJO_CANDIDATE_DIR"], "dojo_escape_canary.txt"),
           "/dojo/launcher/launcher.py"]
for path in targets:
    try:
        with open(path, "a") as f:
            f.write("\nraise SystemExit('tampered')\n")
        report.append(f"BREACH: wrote {path}")
    except OSError as e:
        report.append(f"{os.path.basename(path)}: {e.__class__.__name__}")
raise RuntimeError("; ".join(report))
