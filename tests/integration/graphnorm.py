#!/usr/bin/env python3
"""graphnorm.py - a perf report --stdio output with the siblings of equal
percentage (or count, or period) in each call graph put in one order (by
their text).

perf orders call-graph siblings of equal period by where malloc put their
DSO objects (report/report.h, "Limits"), which pa cannot know. A test that
finds pa's output differs from perf's byte for byte may compare both through
this filter: equal afterwards means the only difference is that order.
Everything else is kept: rows, their order, every graph line's text (the
'|' that marks a sibling as not the last one is blanked, since a sibling
that moves may become the last). Lines of -g folded and chains of -g flat
of equal value are put in one order too.

  graphnorm.py < report.txt
"""
import re
import sys

# a sibling's first line: [prefix][| ]--VALUE--name, VALUE a percentage or,
# with -g ...,count or ...,period, a number (siblings of equal count have
# the same heap-address order as those of equal percentage)
HEADER = re.compile(r"[| ]--(\d+(?:\.\d+)?%?)--")


def header_col(line):
    """Column of a sibling header's '--', or None."""
    m = None
    for m in HEADER.finditer(line):
        pass
    if not m:
        return None
    # only the last marker on the line is a header (a name may hold '--')
    start = m.start() + 1
    if line[start - 1] not in "| ":
        return None
    return start, m.group(1)


def blank_col(line, col):
    if col < len(line) and line[col] == "|":
        line = line[:col] + " " + line[col + 1:]
    return line


def normalize(lines):
    """Lines of one level of a graph (and the levels below it)."""
    heads = []
    for i, line in enumerate(lines):
        h = header_col(line)
        if h:
            heads.append((i, h[0], h[1]))
    if not heads:
        return [l.rstrip() for l in lines if l.strip(" |")]
    col = min(c for _, c, _ in heads)
    at = [(i, pct) for i, c, pct in heads if c == col]
    out = [l.rstrip() for l in lines[: at[0][0]] if l.strip(" |")]
    blocks = []
    for k, (i, pct) in enumerate(at):
        end = at[k + 1][0] if k + 1 < len(at) else len(lines)
        body = [blank_col(l, col - 1) for l in lines[i:end]]
        text = [body[0].rstrip()] + normalize(body[1:])
        blocks.append((pct, text))
    # runs of equal percentage, each in one order
    k = 0
    while k < len(blocks):
        e = k
        while e < len(blocks) and blocks[e][0] == blocks[k][0]:
            e += 1
        blocks[k:e] = sorted(blocks[k:e], key=lambda b: b[1])
        k = e
    for _, text in blocks:
        out.extend(text)
    return out


# a line of -g folded: VALUE then the chain, from the line's start
FOLDED = re.compile(r"^(\d+(?:\.\d+)?%?) \S")


def folded_runs(lines):
    """Runs of -g folded lines of equal value, each in one order."""
    out, k = [], 0
    while k < len(lines):
        m = FOLDED.match(lines[k])
        if not m:
            out.append(lines[k])
            k += 1
            continue
        e = k
        while e < len(lines) and FOLDED.match(lines[e]) and \
                FOLDED.match(lines[e]).group(1) == m.group(1):
            e += 1
        out.extend(sorted(lines[k:e]))
        k = e
    return out


# -g flat: a chain is a block, its value alone on a line, its entries
# below, a blank line after
FLAT = re.compile(r"^ +(\d+(?:\.\d+)?%?)$")


def flat_runs(lines):
    """Runs of -g flat chains of equal value, each in one order."""
    out, k = [], 0
    while k < len(lines):
        if not FLAT.match(lines[k]):
            out.append(lines[k])
            k += 1
            continue
        blocks = []
        while k < len(lines) and FLAT.match(lines[k]):
            e = k + 1
            while e < len(lines) and lines[e].strip():
                e += 1
            e = min(e + 1, len(lines))  # the blank line ends the block
            blocks.append((FLAT.match(lines[k]).group(1), lines[k:e]))
            k = e
        i = 0
        while i < len(blocks):
            j = i
            while j < len(blocks) and blocks[j][0] == blocks[i][0]:
                j += 1
            blocks[i:j] = sorted(blocks[i:j], key=lambda b: b[1])
            i = j
        for _, text in blocks:
            out.extend(text)
    return out


def main():
    lines = flat_runs(folded_runs(sys.stdin.read().split("\n")))
    out, graph = [], []

    def flush():
        if graph:
            out.extend(normalize(graph))
            graph.clear()

    for line in lines:
        # a graph line starts with spaces then '|' or '-' (its stem);
        # rows, headers and blank lines end a graph
        if re.match(r"^ +[|-]", line) or (graph and re.match(r"^ +\S", line)
                                           and not re.match(r"^ +\d+\.\d+%", line)):
            graph.append(line)
            continue
        flush()
        out.append(line)
    flush()
    sys.stdout.write("\n".join(out))


if __name__ == "__main__":
    main()
