# Blow the C stack.
import sys
sys.setrecursionlimit(10**9)


def down(n):
    return down(n + 1) + 1


down(0)
