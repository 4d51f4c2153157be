#!/usr/bin/env python3
"""Seed fuzz/corpus/<target>/ from the real Kafka files under fixtures/ (not committed).

Usage: seed.py FIXTURES_DIR CORPUS_DIR. Each target gets inputs in the layout its harness
expects (see fuzz_targets/*.rs): raw files, or a small prefix (base offset, lookup target,
selector bytes) followed by file contents.
"""
import hashlib
import os
import struct
import sys

fixtures, corpus = sys.argv[1], sys.argv[2]
MAX_FILE = 64 * 1024


def put(target, data):
    d = os.path.join(corpus, target)
    os.makedirs(d, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def files():
    for root, _, names in os.walk(fixtures):
        for n in sorted(names):
            p = os.path.join(root, n)
            if os.path.getsize(p) <= MAX_FILE:
                yield n, p


def read(p):
    with open(p, "rb") as f:
        return f.read()


def base_of(name):
    try:
        return int(name.split(".")[0])
    except ValueError:
        return 0


def v2_batches(log):
    """(attributes, header fields, records section) of each v2 batch in a .log."""
    pos = 0
    while pos + 61 <= len(log):
        base, length = struct.unpack_from(">qi", log, pos)
        if log[pos + 16] != 2 or length < 49 or pos + 12 + length > len(log):
            return
        (attrs, delta, base_ts, max_ts) = struct.unpack_from(">hiqq", log, pos + 21)
        (count,) = struct.unpack_from(">i", log, pos + 57)
        yield attrs, base, delta, base_ts, max_ts, count, log[pos + 61 : pos + 12 + length]
        pos += 12 + length


def varint(buf, pos):
    """Zigzag varint at pos: (value, next pos), or None past the end."""
    shift = raw = 0
    while pos < len(buf) and shift < 35:
        b = buf[pos]
        pos += 1
        raw |= (b & 0x7F) << shift
        if not b & 0x80:
            return (raw >> 1) ^ -(raw & 1), pos
        shift += 7
    return None


def record_values(section, count):
    """Values of the records of an uncompressed v2 records section."""
    pos = 0
    for _ in range(count):
        r = varint(section, pos)
        if not r:
            return
        length, body = r
        end = body + length
        pos = body + 1  # attributes
        for _ in range(2):  # timestamp delta, offset delta
            r = varint(section, pos)
            if not r:
                return
            pos = r[1]
        r = varint(section, pos)  # key length
        if not r:
            return
        pos = r[1] + max(r[0], 0)
        r = varint(section, pos)  # value length
        if not r:
            return
        if r[0] > 0:
            yield section[r[1] : r[1] + r[0]]
        pos = end


def record_key_values(section, count):
    """(key, value) of the records of an uncompressed v2 records section (None = null)."""
    pos = 0
    for _ in range(count):
        r = varint(section, pos)
        if not r:
            return
        length, body = r
        end = body + length
        pos = body + 1  # attributes
        for _ in range(2):  # timestamp delta, offset delta
            r = varint(section, pos)
            if not r:
                return
            pos = r[1]
        out = []
        for _ in range(2):  # key, value
            r = varint(section, pos)
            if not r:
                return
            n, pos = r
            out.append(section[pos : pos + n] if n >= 0 else None)
            pos += max(n, 0)
        yield out[0], out[1]
        pos = end


def coordinator_input(key, value):
    """Harness layout of group_record / txn_state_record / share_state_record: u16 (null bit | key len), key, value."""
    header = len(key) | (0x8000 if value is None else 0)
    return struct.pack(">H", header) + key + (value or b"")


COORDINATOR_TOPICS = {"__consumer_offsets": "group_record", "__transaction_state": "txn_state_record",
                      "__share_group_state": "share_state_record"}

counts = {}
for name, p in files():
    data = read(p)
    if "__cluster_metadata" in p and (name.endswith(".log") or name.endswith(".checkpoint")):
        for attrs, base, delta, bts, mts, count, section in v2_batches(data):
            if not attrs & 0x27:  # uncompressed data batches only (not control)
                for value in record_values(section, count):
                    put("metadata_record", value)
    if "__remote_log_metadata-" in p and name.endswith(".log"):
        for attrs, base, delta, bts, mts, count, section in v2_batches(data):
            if not attrs & 0x27:  # uncompressed data batches only (not control)
                for value in record_values(section, count):
                    put("remote_log_metadata", value)
    target = next((t for topic, t in COORDINATOR_TOPICS.items() if f"{topic}-" in p), None)
    if target and name.endswith(".log"):
        for attrs, base, delta, bts, mts, count, section in v2_batches(data):
            if not attrs & 0x27:  # uncompressed data batches only (not control)
                for key, value in record_key_values(section, count):
                    if key is not None:
                        put(target, coordinator_input(key, value))
                        put(target, coordinator_input(key, None))
    if name.endswith(".log"):
        put("walk", data)
        for attrs, base, delta, bts, mts, count, section in v2_batches(data):
            mode = attrs & 0x7F
            hdr = struct.pack(">bqiqqi", 2, base, delta, bts, mts, count)
            put("record_decode", bytes([2]) + bytes([mode]) + hdr[1:] + section)
            codec = attrs & 7
            if codec:
                put("decompress", bytes([codec, 20]) + section)
    elif name.endswith(".index"):
        put("offset_index", struct.pack(">qq", base_of(name), base_of(name) + 1) + data)
    elif name.endswith(".timeindex"):
        put("time_index", struct.pack(">qq", base_of(name), 0) + data)
    elif name.endswith(".txnindex"):
        put("txn_index", struct.pack(">q", base_of(name)) + data)
    elif name.endswith(".snapshot"):
        put("producer_snapshot", data)
    elif "checkpoint" in name:
        put("checkpoint", data)
    elif name in ("partition.metadata", "meta.properties", ".kafka_cleanshutdown"):
        put("small_files", data)

def str16(s):
    return struct.pack(">h", len(s)) + s


# One synthetic key per __consumer_offsets record type (layouts as in group_record.rs), with a
# bare value version, so the fuzzer starts from every type, not only the fixtures' commits.
MEMBER_TYPES = {5, 7, 8, 10, 13, 14, 19, 21, 22}
for t in range(26):
    key = struct.pack(">h", t) + str16(b"g")
    if t in (0, 1):
        key += str16(b"t") + struct.pack(">i", 0)
    elif t in MEMBER_TYPES or t == 16:
        key += str16(b"m")
    put("group_record", coordinator_input(key, None))
    for version in range(5):
        put("group_record", coordinator_input(key, struct.pack(">h", version)))

for t in sorted(os.listdir(corpus)):
    print(f"seeded {t}: {len(os.listdir(os.path.join(corpus, t)))} inputs")
