# Write a single file larger than the file-size limit.
import os

with open(os.path.join(os.getcwd(), "big.bin"), "wb") as f:
    for _ in range(1024):
        f.write(b"\0" * (1024 * 1024))
raise RuntimeError("BREACH: wrote 1 GiB")
