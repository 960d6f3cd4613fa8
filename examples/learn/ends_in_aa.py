#!/usr/bin/env python3
"""A system under learning for `rvmon learn --process`: it reads one word a line (symbols
separated by spaces, the empty word an empty line) and answers 1 if the word ends in `a a`."""
import sys

for line in sys.stdin:
    word = line.split()
    print(1 if word[-2:] == ["a", "a"] else 0, flush=True)
