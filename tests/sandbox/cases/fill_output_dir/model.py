# Fill the output and scratch directories with many files, then raise.
import os

report = []
for d in [os.environ["DOJO_OUT"], os.getcwd()]:
    n = 0
    try:
        while n < 100000:
            with open(os.path.join(d, f"f{n}"), "wb") as f:
                f.write(b"\0" * 1024 * 1024)
            n += 1
    except OSError as e:
        report.append(f"{e.__class__.__name__} after {n} files")
raise RuntimeError("; ".join(report))
