# Decompress a small payload into more memory than we are allowed.
import zlib

bomb = zlib.compress(b"\0" * (64 * 1024 * 1024), 1)
chunks = []
while True:
    chunks.append(zlib.decompress(bomb))
