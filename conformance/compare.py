#!/usr/bin/env python3
"""Compare committed fixture manifests with freshly generated ones.

Usage: compare.py COMMITTED_DIR FRESH_DIR

Compares the structural facts a manifest records: scenario set, shutdown kind, log dirs, static broker
config (minus ports), dynamic broker configs, topics (partition counts and every config value + source),
per-partition log dir / log start offset / high watermark / last stable offset / log end offset /
segment, .txnindex and producer-snapshot base offsets, data-topic sizes, consumer group offsets, deleted
groups, producer states (epoch, open transaction start), coordinator transaction states, hanging transactions,
groups the coordinator expired, find-hanging's rows,
top-level log-dir files, metadata-log segments and whether a runtime snapshot exists.
Ignores volatile fields: topic ids (and the __remote_log_metadata partition numbers they decide; the log dir of
an empty one; the offsets of the one a failing RSM's retries write to), times, internal-topic sizes, ports, snapshot offsets, steps text; time-rolled logs (__share_group_state, a metadata log with
metadata.log.segment.ms) are compared by shape, share groups' start offsets by which partitions they cover.
Exits 1 and prints a diff on any mismatch.
"""
import json
import os
import sys

# Ports: the listeners, the KRaft quorum (4.4 dynamic, 3.9 static voters) and ZooKeeper's (3.9 ZooKeeper mode).
VOLATILE_BROKER_KEYS = {"listeners", "advertised.listeners", "controller.quorum.bootstrap.servers",
                        "controller.quorum.voters", "zookeeper.connect"}
BOOTSTRAP_SNAPSHOT = "00000000000000000000-0000000000.checkpoint"
# Keys of the coordinator and producer state captured since issue 8.
STATE_KEYS = ("deleted_groups", "producers", "transactions", "hanging_transactions", "expired_groups",
              "find_hanging")


def normalize(m):
    out = {}
    for k in ("scenario", "kafka_version", "mode", "shutdown", "cluster_id", "node_id", "log_dirs", "metadata_log_dir",
              "zookeeper_data_dir", "topic_configs_file"):
        out[k] = m.get(k)
    # Manifests written before the 3.9.1 scenarios have no mode: every one of them is a KRaft broker.
    out["mode"] = out["mode"] or "kraft"
    out["broker_config"] = {k: v for k, v in m.get("broker_config", {}).items() if k not in VOLATILE_BROKER_KEYS}
    # Multi-broker fixtures (issue 21): one entry per node, its dirs and static config (minus ports), whether it
    # was running at capture; partitions[] has one entry per replica (node_id); the scenario's recorded broker
    # behaviour (facts: HW, ISR, ELR, the offsets acks=1 writes got) is compared as is.
    if "nodes" in m:
        out["nodes"] = {str(n["node_id"]): {
            "process_roles": n.get("process_roles"),
            "at_capture": n.get("at_capture"),
            "log_dirs": n.get("log_dirs"),
            "log_dir_files": n.get("log_dir_files"),
            "broker_config": {k: v for k, v in n.get("broker_config", {}).items() if k not in VOLATILE_BROKER_KEYS},
        } for n in m["nodes"]}
        out["facts"] = m.get("facts")
        out["assignment"] = {"%s-%d" % (t["name"], a["partition"]): a for t in m.get("topics", [])
                             for a in t.get("assignment", [])}
    out["dynamic_broker_configs"] = m.get("dynamic_broker_configs", {})
    topics = {}
    internal = set()
    for t in m.get("topics", []):
        if t.get("internal"):
            internal.add(t["name"])
        topics[t["name"]] = {
            "partitions": t["partitions"],
            "internal": t.get("internal"),
            "configs": {k: [v.get("value"), v.get("source")] for k, v in t.get("configs", {}).items()},
        }
    out["topics"] = topics
    parts = {}
    for p in m.get("partitions", []):
        key = "%s-%d" % (p["topic"], p["partition"])
        if "node_id" in p:
            key += "@node-%d" % p["node_id"]
        d = {k: p.get(k) for k in ("log_dir", "log_start_offset", "high_watermark", "last_stable_offset",
                                   "log_end_offset", "segments_on_disk", "txnindex_on_disk",
                                   "producer_snapshots_on_disk", "role", "in_isr", "offset_lag")}
        if p["topic"] not in internal and not p["topic"].startswith("__"):
            d["size_bytes"] = p.get("size_bytes")
        parts[key] = d
    # Which __remote_log_metadata partition holds a topic's records follows from its topic id, random per
    # run: the metadata partitions are compared as a set of their facts, not by number.
    # An empty one lies in whichever log dir the broker picked (tiered-metadata-elsewhere moves only the one
    # that holds the topic's records). With an RSM that fails from the Nth copy (tiered-failed) the broker
    # writes three records per retry until it stops: the partition's offsets count the retries, compared by
    # shape (it holds records, in which dir).
    failing = "rsm.config.fail.from.copy" in (m.get("broker_config") or {})

    def rlm_facts(d):
        if not d.get("log_end_offset"):
            d = dict(d, log_dir=None)
        elif failing:
            d = {"log_dir": d.get("log_dir"), "has_records": True}
        return d
    rlm = sorted(json.dumps(rlm_facts(parts.pop(k)), sort_keys=True) for k in list(parts)
                 if k.startswith("__remote_log_metadata-"))
    if rlm:
        parts["__remote_log_metadata-*"] = rlm
    # __share_group_state rolls on time (segment.ms altered to seconds in scenario internal-topics) and holds one
    # record per share-state write, as many as the consumers' acknowledgements made: compared by shape (pruned or
    # not, several segments), not by offsets.
    for k in [k for k in parts if k.startswith("__share_group_state-")]:
        d = parts[k]
        parts[k] = {"log_start_offset_is_0": d.get("log_start_offset") == 0,
                    "several_segments": len(d.get("segments_on_disk") or []) >= 3}
    out["partitions"] = parts
    out["share_groups"] = {g: sorted(offs) for g, offs in m.get("share_groups", {}).items()}
    out["groups"] = {g["group"]: {"%s-%d" % (o["topic"], o["partition"]): o["offset"] for o in g.get("offsets", [])}
                     for g in m.get("groups", [])}
    # Coordinator and producer state (captured by harnesses since issue 8): deleted groups, open
    # transactions per partition (producer epoch and start offset), coordinator states, hanging ones.
    # Compared only for committed manifests that have them (older fixtures were captured without).
    out["deleted_groups"] = m.get("deleted_groups", [])
    out["producers"] = sorted("%s-%d epoch %d start %d" % (p["topic"], p["partition"], p["producer_epoch"],
                                                          p["current_transaction_start_offset"])
                              for p in m.get("producers", []))
    out["transactions"] = {t["transactional_id"]: [t["state"], t.get("partitions", [])]
                           for t in m.get("transactions", [])}
    out["hanging_transactions"] = sorted("%s-%d start %d" % (h["topic"], h["partition"], h["start_offset"])
                                         for h in m.get("hanging_transactions", []))
    # Groups the coordinator expired (offsets.retention.minutes) before capture, and kafka-transactions.sh
    # find-hanging's rows on the live broker (scenario expired-hanging); empty for the others.
    out["expired_groups"] = sorted(m.get("expired_groups", []))
    out["find_hanging"] = sorted("%s-%d epoch %d start %d" % (h["topic"], h["partition"], h["producer_epoch"],
                                                             h["start_offset"])
                                 for h in m.get("find_hanging", []))
    out["log_dir_files"] = m.get("log_dir_files", {})
    ml = m.get("metadata_log", {})
    snaps = ml.get("snapshots_on_disk", [])
    segments = ml.get("segments_on_disk")
    # A metadata log that rolls on time (metadata.log.segment.ms, scenario internal-topics): how many segments it
    # has depends on how long the scenario ran; compared as "several".
    if "metadata.log.segment.ms" in m.get("broker_config", {}):
        segments = "several" if len(segments or []) >= 3 else segments
    out["metadata_log"] = {
        "segments_on_disk": segments,
        "bootstrap_snapshot": BOOTSTRAP_SNAPSHOT in snaps,
        "runtime_snapshot": any(s != BOOTSTRAP_SNAPSHOT for s in snaps),
    }
    return out


def diff(a, b, path, out):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            p = "%s.%s" % (path, k) if path else str(k)
            if k not in a:
                out.append("  + %s: only in fresh: %s" % (p, json.dumps(b[k])[:200]))
            elif k not in b:
                out.append("  - %s: only in committed: %s" % (p, json.dumps(a[k])[:200]))
            else:
                diff(a[k], b[k], p, out)
    elif a != b:
        out.append("  ~ %s: committed=%s fresh=%s" % (path, json.dumps(a), json.dumps(b)))


def scenarios(d):
    return sorted(x for x in os.listdir(d) if os.path.isfile(os.path.join(d, x, "manifest.json")))


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    committed, fresh = sys.argv[1], sys.argv[2]
    sc, sf = scenarios(committed), scenarios(fresh)
    bad = 0
    if sc != sf:
        print("scenario sets differ: committed=%s fresh=%s" % (sc, sf))
        bad += 1
    for s in sorted(set(sc) & set(sf)):
        with open(os.path.join(committed, s, "manifest.json")) as f:
            raw = json.load(f)
            a = normalize(raw)
        with open(os.path.join(fresh, s, "manifest.json")) as f:
            b = normalize(json.load(f))
        if "producers" not in raw:
            for k in STATE_KEYS:
                a.pop(k, None)
                b.pop(k, None)
        out = []
        diff(a, b, "", out)
        if out:
            bad += 1
            print("MISMATCH %s (%d differences):" % (s, len(out)))
            print("\n".join(out))
        else:
            print("match    %s" % s)
    if bad:
        print("conformance: %d scenario(s) differ from the committed fixtures" % bad)
        return 1
    print("conformance: all %d scenarios match" % len(sc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
