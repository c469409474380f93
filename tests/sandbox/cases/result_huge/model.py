# Write a result far larger than the cap, then leave before the harness can overwrite it.
import os

with open(os.path.join(os.environ["DOJO_OUT"], "result.json"), "w") as f:
    f.write('{"pad": "' + "x" * (6 * 1024 * 1024) + '"}')
os._exit(0)
