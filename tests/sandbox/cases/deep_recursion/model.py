# Blow the C stack: a deeply nested list whose repr recurses in C, with Python's guard lifted.
import sys

sys.setrecursionlimit(10**9)
nested = []
for _ in range(10**6):
    nested = [nested]
repr(nested)
