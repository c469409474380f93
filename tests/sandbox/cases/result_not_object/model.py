# Leave a JSON result whose top level is not an object.
import os

with open(os.path.join(os.environ["DOJO_OUT"], "result.json"), "w") as f:
    f.write("[1, 2, 3]")
os._exit(0)
