# ruff: noqa
# Use up every file descriptor.
files = []
while True:
    files.append(open("/dev/null"))
