# Make result.json a directory.
import os

os.mkdir(os.path.join(os.environ["DOJO_OUT"], "result.json"))
os._exit(0)
