#!/usr/bin/env python3
"""difffolded.py - the test oracle for `pa folded --diff`: an independent
re-implementation of FlameGraph's difffolded.pl (which is Perl, and not
installed or vendored here), written from the script's rules:

    difffolded.py [-n] [-s] FOLDED1 FOLDED2

- Each input line loses one trailing "\\n" (Perl's chomp; a "\\r" stays) and
  is matched against /^(.*)\\s+?(\\d+(?:\\.\\d*)?)$/: the stack, then at least
  one blank, then the count. A line that does not match gives the stack
  undef, which Perl turns into the hash key "" with nothing added (so it
  prints as " 0 0").
- -s: every "0x" followed by hex digits becomes "0x..." in the stack.
- Counts of equal stacks add up, per file; so do the totals.
- Every stack of either file is printed as "STACK COUNT1 COUNT2", 0 for a
  file without it. -n, when the totals differ: COUNT1 becomes
  int(COUNT1 * TOTAL2 / TOTAL1).
- The order of the lines is Perl's hash order, which changes from run to
  run: compare sorted lines. (Printed here in the order first seen.)

Perl's numbers, as far as they show: a count of digits is an integer (up
to 2^64); one with a fraction is a double. Integers add exactly while the
sum fits 64 bits; anything else adds as doubles. A product of two integers
that fits 64 bits stays an integer, and a division of integers that comes
out whole is exact; otherwise the arithmetic is in doubles. Integers print
as digits, doubles as "%.15g"; int() of a double below 2^64 is an integer.
"""
import re
import sys

LINE = re.compile(rb"^(.*)\s+?(\d+(?:\.\d*)?)$", re.S)
HEX = re.compile(rb"0x[0-9a-fA-F]+")
U64 = 1 << 64


def number(text):
    """Perl's numeric value of a count string: int or float."""
    whole, _, frac = text.partition(b".")
    if frac.strip(b"0") == b"" and int(whole) < U64:
        return int(whole)
    return float(text)


def add(a, b):
    if isinstance(a, int) and isinstance(b, int) and a + b < U64:
        return a + b
    return float(a) + float(b)


def integral(v):
    """v as a Perl integer if it can be one, else None."""
    if isinstance(v, int):
        return v
    if 0 <= v < U64 and v == int(v):
        return int(v)
    return None


def scale(c, t2, t1):
    """int(c * t2 / t1) as Perl computes it."""
    ci, t2i, t1i = integral(c), integral(t2), integral(t1)
    if ci is not None and t2i is not None and ci * t2i < U64:
        prod = ci * t2i
        if t1i and prod % t1i == 0:
            return prod // t1i
        q = float(prod) / float(t1)
    else:
        q = float(c) * float(t2) / float(t1)
    return int(q) if 0 <= q < U64 else q


def show(v):
    return str(v) if isinstance(v, int) else "%.15g" % v


def read(path, side, folded, totals, strip):
    with open(path, "rb") as f:
        data = f.read()
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()  # the text after the last "\n": no line
    for line in lines:
        m = LINE.match(line)
        stack, count = (m.group(1), number(m.group(2))) if m else (b"", 0)
        if strip and m:
            stack = HEX.sub(b"0x...", stack)
        entry = folded.setdefault(stack, [None, None])
        entry[side] = add(entry[side] if entry[side] is not None else 0, count)
        totals[side] = add(totals[side], count)


def main():
    args = sys.argv[1:]
    normalize = strip = False
    while args and args[0].startswith("-") and len(args[0]) > 1:
        for o in args.pop(0)[1:]:
            if o == "n":
                normalize = True
            elif o == "s":
                strip = True
            else:
                sys.exit(__doc__)
    if len(args) != 2:
        sys.exit(__doc__)
    folded, totals = {}, [0, 0]
    read(args[0], 0, folded, totals, strip)
    read(args[1], 1, folded, totals, strip)
    out = sys.stdout.buffer
    for stack, (c1, c2) in folded.items():
        c1 = 0 if c1 is None else c1
        c2 = 0 if c2 is None else c2
        if normalize and float(totals[0]) != float(totals[1]):
            c1 = scale(c1, totals[1], totals[0])  # ZeroDivisionError where Perl dies too
        out.write(stack + b" " + show(c1).encode() + b" " + show(c2).encode() + b"\n")


if __name__ == "__main__":
    main()
