#!/usr/bin/env python3
"""perfdata.py - a small, independent perf.data inspector/editor for the tests.

It knows just enough of the format (either byte order, file and pipe mode)
to find things to break or strip; it never interprets record payloads
(but for stack-dyn, which finds a sample's user stack copy by its size).

  perfdata.py info FILE          key=value lines (layout, features, records)
  perfdata.py records FILE       "offset type size" for each record
  perfdata.py forks FILE         "offset misc pid ppid tid ptid" per FORK record
  perfdata.py strip IN OUT FEAT... copy IN without the named header features
  perfdata.py put FILE OFF WIDTH VALUE
                                 write an unsigned WIDTH-byte (1,2,4,8) integer
                                 at OFF in the file's own byte order
  perfdata.py damage IN OUT FEAT HOW
                                 copy IN with header feature FEAT damaged (file
                                 mode: its section; pipe mode: its HEADER_FEATURE
                                 record). HOW: "len" (its first u32, a string
                                 length or a count, made 0xfffffff0), "misplaced"
                                 (file mode: the section table entry points at
                                 the file header, offset 0), "entry" (BUILD_ID: the
                                 second entry's size made 4), "empty" (pipe mode: the
                                 record keeps no payload)
  perfdata.py damage-each IN PREFIX HOW FEAT...
                                 the same for each FEAT that IN has, into
                                 PREFIX.FEAT.HOW.data; prints the FEATs done
  perfdata.py cros IN OUT TWIN [front]
                                 rewrite the upstream pipe file IN the way
                                 Chromium OS's perf (kernel 3.x era) writes
                                 it: each HEADER_FEATURE record that it numbers
                                 (HOSTNAME..NUMA_TOPOLOGY as 69..80,
                                 PMU_MAPPINGS as 81, its count 0 as such pipes
                                 have it) becomes that record, holding the
                                 feature section's bytes; other features and
                                 upstream's records 69..84 are dropped. TWIN
                                 gets the same stream in upstream's numbering
                                 (what perf reads). "front": the feature
                                 records go first, before the HEADER_ATTRs
  perfdata.py stack-dyn IN OUT V...
                                 copy IN (file mode, one event) with the user
                                 stack copies' dyn_size of its samples set to
                                 V in turn (sample K gets V[K % len(V)]; "-"
                                 keeps it): the part the kernel could copy, 0
                                 when the stack's page was not there
  perfdata.py zero-inner IN OUT  rewrite the first COMPRESSED record so that
                                 the first record inside it has size 0
                                 (needs the zstd program)
"""
import subprocess
import struct
import sys

FEATS = ("RESERVED TRACING_DATA BUILD_ID HOSTNAME OSRELEASE VERSION ARCH NRCPUS "
         "CPUDESC CPUID TOTAL_MEM CMDLINE EVENT_DESC CPU_TOPOLOGY NUMA_TOPOLOGY "
         "BRANCH_STACK PMU_MAPPINGS GROUP_DESC AUXTRACE STAT CACHE SAMPLE_TIME "
         "MEM_TOPOLOGY CLOCKID DIR_FORMAT BPF_PROG_INFO BPF_BTF COMPRESSED "
         "CPU_PMU_CAPS CLOCK_DATA HYBRID_TOPOLOGY PMU_CAPS").split()
REC_COMPRESSED = (81, 83)
REC_HEADER_FEATURE = 80
REC_AUXTRACE = 71
REC_TRACING_DATA = 66


def die(msg):
    sys.stderr.write("perfdata.py: %s\n" % msg)
    sys.exit(1)


class PerfData:
    def __init__(self, data):
        self.b = data
        if data[:8] == b"PERFILE2":
            self.e = "<"
        elif data[:8] == b"2ELIFREP":
            self.e = ">"
        else:
            die("not a PERFILE2 file")
        self.size = self.u64(8)
        self.pipe = self.size == 16
        self.feats = []  # (bit, section offset, section size, table entry offset)
        if self.pipe:
            self.data_offset, self.data_end = 16, len(data)
            return
        (self.attr_size, self.attrs_offset, self.attrs_size, self.data_offset,
         self.data_size) = struct.unpack_from(self.e + "5Q", data, 16)
        self.data_end = self.data_offset + self.data_size
        self.feat_offset = self.data_end
        bits = self.feature_bits()
        off = self.feat_offset
        for bit in range(256):
            if bits >> bit & 1:
                so, ss = struct.unpack_from(self.e + "QQ", data, off)
                self.feats.append((bit, so, ss, off))
                off += 16

    def u64(self, off):
        return struct.unpack_from(self.e + "Q", self.b, off)[0]

    def feature_bits(self):
        # An array of four u64 (a 64-bit writer's unsigned longs).
        words = struct.unpack_from(self.e + "4Q", self.b, 72)
        return sum(w << (64 * i) for i, w in enumerate(words))

    def records(self):
        """(offset, type, size) of each record of the data stream."""
        off, out = self.data_offset, []
        while off + 8 <= self.data_end:
            typ, _misc, size = struct.unpack_from(self.e + "IHH", self.b, off)
            if size < 8:
                break
            out.append((off, typ, size))
            extra = 0
            if typ == REC_AUXTRACE and size >= 16:
                extra = self.u64(off + 8)
            elif typ == REC_TRACING_DATA and size >= 12:
                extra = (struct.unpack_from(self.e + "I", self.b, off + 8)[0] + 7) & ~7
            off += size + extra
        return out


def feat_name(bit):
    return FEATS[bit] if bit < len(FEATS) else "FEAT%d" % bit


def cmd_info(path):
    pd = PerfData(open(path, "rb").read())
    print("endian=%s" % ("big" if pd.e == ">" else "little"))
    print("mode=%s" % ("pipe" if pd.pipe else "file"))
    print("file_size=%d" % len(pd.b))
    if not pd.pipe:
        print("attr_size=%d" % pd.attr_size)
        print("attrs_offset=%d" % pd.attrs_offset)
        print("attrs_size=%d" % pd.attrs_size)
        print("data_offset=%d" % pd.data_offset)
        print("data_size=%d" % pd.data_size)
        print("feat_offset=%d" % pd.feat_offset)
        for bit, so, ss, te in pd.feats:
            n = feat_name(bit)
            print("feat_%s=%d,%d,%d" % (n, so, ss, te))
    recs = pd.records()
    print("nr_records=%d" % len(recs))
    if recs:
        print("first_record=%d" % recs[0][0])
        print("last_record=%d,%d" % (recs[-1][0], recs[-1][2]))
    comp = [r for r in recs if r[1] in REC_COMPRESSED]
    if comp:
        print("first_compressed=%d,%d" % (comp[0][0], comp[0][2]))
    samples = [r for r in recs if r[1] == 9]
    if samples:
        print("first_sample=%d,%d" % (samples[0][0], samples[0][2]))
    feat_recs = [r for r in recs if r[1] == REC_HEADER_FEATURE]
    for off, _t, size in feat_recs:
        bit = pd.u64(off + 8)
        print("featrec_%s=%d,%d" % (feat_name(bit), off, size))


def cmd_records(path):
    pd = PerfData(open(path, "rb").read())
    for off, typ, size in pd.records():
        print("%d %d %d" % (off, typ, size))


def cmd_forks(path):
    pd = PerfData(open(path, "rb").read())
    for off, typ, _size in pd.records():
        if typ == 7:
            misc = struct.unpack_from(pd.e + "H", pd.b, off + 4)[0]
            pid, ppid, tid, ptid = struct.unpack_from(pd.e + "4I", pd.b, off + 8)
            print("%d %d %d %d %d %d" % (off, misc, pid, ppid, tid, ptid))


def cmd_strip(src, dst, names):
    pd = PerfData(open(src, "rb").read())
    if pd.pipe:
        die("strip works on file-mode data only")
    drop = set()
    for n in names:
        if n not in FEATS:
            die("unknown feature %s" % n)
        drop.add(FEATS.index(n))
    keep = [f for f in pd.feats if f[0] not in drop]
    out = bytearray(pd.b[:pd.feat_offset])
    bits = 0
    for bit, _so, _ss, _te in keep:
        bits |= 1 << bit
    struct.pack_into(pd.e + "4Q", out, 72,
                     *[(bits >> (64 * i)) & (2**64 - 1) for i in range(4)])
    # New section table, then the kept sections in the same order.
    pos = pd.feat_offset + 16 * len(keep)
    table, body = bytearray(), bytearray()
    for _bit, so, ss, _te in keep:
        table += struct.pack(pd.e + "QQ", pos + len(body), ss)
        body += pd.b[so:so + ss]
    out += table + body
    open(dst, "wb").write(out)


def cmd_damage(src, dst, name, how, pd=None):
    pd = pd or PerfData(open(src, "rb").read())
    if name not in FEATS:
        die("unknown feature %s" % name)
    bit = FEATS.index(name)
    out = bytearray(pd.b)
    if pd.pipe:
        recs = [r for r in pd.records()
                if r[1] == REC_HEADER_FEATURE and pd.u64(r[0] + 8) == bit]
        if not recs:
            die("no %s feature record" % name)
        off, _typ, size = recs[0]
        if how == "len" and size >= 20:
            struct.pack_into(pd.e + "I", out, off + 16, 0xfffffff0)
        elif how == "empty":
            # the record cut to its header and id (a pipe has no offsets
            # to fix up)
            struct.pack_into(pd.e + "H", out, off + 6, 16)
            del out[off + 16:off + size]
        else:
            die("cannot damage a %s record with %s" % (name, how))
        open(dst, "wb").write(out)
        return
    secs = [f for f in pd.feats if f[0] == bit]
    if not secs:
        die("no %s section" % name)
    _bit, so, ss, te = secs[0]
    if how == "len" and ss >= 4:
        struct.pack_into(pd.e + "I", out, so, 0xfffffff0)
    elif how == "misplaced":
        struct.pack_into(pd.e + "Q", out, te, 0)
    elif how == "entry" and name == "BUILD_ID":
        first = struct.unpack_from(pd.e + "H", pd.b, so + 6)[0]
        if first + 8 > ss:
            die("one build-id entry only")
        struct.pack_into(pd.e + "H", out, so + first + 6, 4)
    else:
        die("cannot damage %s with %s" % (name, how))
    open(dst, "wb").write(out)


def cmd_damage_each(src, prefix, how, names):
    pd = PerfData(open(src, "rb").read())
    have = set(feat_name(f[0]) for f in pd.feats)
    if pd.pipe:
        have = set(feat_name(pd.u64(r[0] + 8)) for r in pd.records()
                   if r[1] == REC_HEADER_FEATURE)
    for name in names:
        if name in have:
            cmd_damage(src, "%s.%s.%s.data" % (prefix, name, how), name, how, pd)
            print(name)


def cmd_stack_dyn(src, dst, values):
    data = bytearray(open(src, "rb").read())
    pd = PerfData(bytes(data))
    if pd.pipe or pd.attrs_size != pd.attr_size:
        die("%s: not a file-mode recording of one event" % src)
    # perf_event_attr.sample_stack_user (u32 at 88): the copy's size; a
    # sample holds u64 size, the copy, u64 dyn_size (the size is the only
    # such u64 followed by the copy and a dyn_size no bigger than it)
    want = struct.unpack_from(pd.e + "I", data, pd.attrs_offset + 88)[0]
    if not want:
        die("%s: no user stack copies" % src)
    k = 0
    for off, typ, size in pd.records():
        if typ != 9:
            continue
        at = [o for o in range(off + 8, off + size - want - 15, 8)
              if pd.u64(o) == want and pd.u64(o + 8 + want) <= want]
        if len(at) != 1:
            die("%s: sample at %d: no single user stack copy" % (src, off))
        v = values[k % len(values)]
        k += 1
        if v != "-":
            struct.pack_into(pd.e + "Q", data, at[0] + 8 + want, int(v, 0))
    open(dst, "wb").write(data)


def cmd_put(path, off, width, value):
    data = bytearray(open(path, "rb").read())
    pd = PerfData(bytes(data))
    fmt = {1: "B", 2: "H", 4: "I", 8: "Q"}[width]
    struct.pack_into(pd.e + fmt, data, off, value)
    open(path, "wb").write(data)


# Chromium OS's pipe record number of each feature it writes as a record.
CROS_REC = dict([(bit, 66 + bit) for bit in range(3, 15)] + [(16, 81)])


def cmd_cros(src, dst, twin, front=False):
    pd = PerfData(open(src, "rb").read())
    if not pd.pipe:
        die("%s: not a pipe-mode file" % src)
    cros, up = bytearray(), bytearray()
    cros_feats, up_feats = bytearray(), bytearray()
    recs = pd.records()
    for i, (off, typ, size) in enumerate(recs):
        end = recs[i + 1][0] if i + 1 < len(recs) else pd.data_end
        whole = pd.b[off:end]  # the record and any payload behind it
        if typ in REC_COMPRESSED:
            die("%s: compressed records cannot be rewritten" % src)
        if typ == REC_HEADER_FEATURE:
            bit = pd.u64(off + 8)
            if bit not in CROS_REC:
                continue
            body = bytearray(pd.b[off + 16:off + size])
            if bit == FEATS.index("PMU_MAPPINGS"):
                struct.pack_into(pd.e + "I", body, 0, 0)
            misc = struct.unpack_from(pd.e + "H", pd.b, off + 4)[0]
            rec = struct.pack(pd.e + "IHH", CROS_REC[bit], misc, 8 + len(body)) + body
            if front:
                cros_feats += rec
                up_feats += whole
            else:
                cros += rec
                up += whole
            continue
        if 69 <= typ <= 84:
            continue
        cros += whole
        up += whole
    open(dst, "wb").write(pd.b[:16] + cros_feats + cros)
    open(twin, "wb").write(pd.b[:16] + up_feats + up)


def cmd_zero_inner(src, dst):
    pd = PerfData(open(src, "rb").read())
    comp = [r for r in pd.records() if r[1] in REC_COMPRESSED]
    if not comp:
        die("no COMPRESSED record")
    off, typ, size = comp[0]
    hdr = 16 if typ == 83 else 8
    # perf flushes but never ends its zstd frame (later records continue
    # it), so zstd decompresses all there is and then complains.
    plain = subprocess.run(["zstd", "-d", "-c", "-q"], input=pd.b[off + hdr:off + size],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
    if len(plain) < 8:
        die("could not decompress the COMPRESSED record")
    plain = bytearray(plain)
    struct.pack_into(pd.e + "H", plain, 6, 0)
    packed = subprocess.run(["zstd", "-c", "-q", "-1"], input=bytes(plain),
                            stdout=subprocess.PIPE, check=True).stdout
    body = packed
    if typ == 83:
        body = struct.pack(pd.e + "Q", len(packed)) + packed
        body += b"\0" * (-len(body) % 8)
    new_size = 8 + len(body)
    if new_size > 0xffff:
        die("recompressed record too big")
    misc = struct.unpack_from(pd.e + "H", pd.b, off + 4)[0]
    rec = struct.pack(pd.e + "IHH", typ, misc, new_size) + body
    delta = new_size - size
    out = bytearray(pd.b[:off]) + rec + pd.b[off + size:]
    if not pd.pipe:
        struct.pack_into(pd.e + "Q", out, 48, pd.data_size + delta)
        for _bit, so, ss, te in pd.feats:
            struct.pack_into(pd.e + "QQ", out, te + delta, so + delta, ss)
    open(dst, "wb").write(out)


def main(argv):
    if len(argv) < 3:
        die(__doc__.strip())
    cmd = argv[1]
    if cmd == "info":
        cmd_info(argv[2])
    elif cmd == "records":
        cmd_records(argv[2])
    elif cmd == "forks":
        cmd_forks(argv[2])
    elif cmd == "strip" and len(argv) >= 4:
        cmd_strip(argv[2], argv[3], argv[4:])
    elif cmd == "damage" and len(argv) == 6:
        cmd_damage(argv[2], argv[3], argv[4], argv[5])
    elif cmd == "damage-each" and len(argv) >= 5:
        cmd_damage_each(argv[2], argv[3], argv[4], argv[5:])
    elif cmd == "cros" and len(argv) in (5, 6) and argv[5:] in ([], ["front"]):
        cmd_cros(argv[2], argv[3], argv[4], argv[5:] == ["front"])
    elif cmd == "stack-dyn" and len(argv) >= 5:
        cmd_stack_dyn(argv[2], argv[3], argv[4:])
    elif cmd == "zero-inner" and len(argv) == 4:
        cmd_zero_inner(argv[2], argv[3])
    elif cmd == "put" and len(argv) == 6:
        cmd_put(argv[2], int(argv[3], 0), int(argv[4], 0), int(argv[5], 0))
    else:
        die("bad usage")


if __name__ == "__main__":
    main(sys.argv)
