#!/usr/bin/env python3
"""Compare `logclean plan` with what a real broker did (Replay's replay.json).

Usage:
  plan_compare.py SCENARIO REPLAY_JSON PLAN_AT_START_JSON PLAN_AT_END_JSON [DIAG_AT_START DIAG_AT_... DIAG_AT_END]
                                                     compare; exit 1 on a difference
  plan_compare.py --single-node NODE SCENARIO REPLAY_JSON PLAN_AT_START_JSON PLAN_AT_END_JSON
                                                     a multi-broker replay against a plan over node NODE's dirs
                                                     alone: exit 1 on a difference no assumption explains
  plan_compare.py --oracle SCENARIO REPLAY_JSON     print what the broker did

The plan is evaluated twice, at the start and at the end of the broker's run window (the broker evaluates
retention against its own wall clock, somewhere inside that window). A segment whose verdict differs
between the two plans, and a partition whose log_start_offset_after / will_clean / clean_up_to differs, is
"time-sensitive": it is counted and checked only loosely (the broker's value must be one of the two).

Compared, per partition (keyed by topic and partition: one broker has one replica of each):
  * deleted set: segments the broker deleted (live .log before minus after) == segments the plan says
    `delete`. Segments below the new cleaner checkpoint of a partition the broker cleaned are left out:
    the cleaner merges them into fewer segments, which is not a deletion -- unless the plan modelled that
    cleaning (it says `merge` for some segment of the partition, with `merged_into`): then each `merge`
    segment must be gone after the run and its `merged_into` segment present (if that one is kept), and a
    segment the plan keeps must still be there. A `merge` on a partition the broker did not clean is a
    difference.
  * new log start offset (ListOffsets earliest) == log_start_offset_after.
  * compacted partitions (cleanup.policy has compact; the plan must have `compaction`): cleaned (cleaner-offset-checkpoint changed) ==
    will_clean, or the plan's checkpoint_after moves the entry (a reset to the new log start); and if
    cleaned, the new checkpoint == checkpoint_after (clean_up_to for plans without it).
A partition on disk that the plan does not list, or a listed segment the plan has no verdict for, is a
difference too.

The metadata log (`__cluster_metadata-0`) is not in the plan: it has no retention passes. Its own cleaner
(KafkaRaftLog.maybeClean, first run 60 s after the raft client starts) is compared when the diagnose documents
(DIAG_AT_*: `logclean diagnose --kind metadata.log_redundant` at the window's start, at each instant inside it
where the finding's `next_expiry_at` says the next snapshot passes metadata.max.retention.ms, and at its end, with
the replay's broker settings) are given and the replay window lasted past that first run (settled >= ready + 65 s):
the cleaner's new log start L is the finding's `cleaner_log_start` (no finding, or none in it: nothing deleted);
the broker must have deleted exactly the fixture's segments whose next segment starts at or below L
(UnifiedLog.deleteOldSegments) and the snapshots whose end offset is below L, and no other, for the L of one of
those instants (the cleaner runs on its own clock: a fixture whose snapshots expire one by one inside the window
has as many right answers as instants).

--single-node (issue 21): a multi-broker replay compared with a plan over one node's dirs alone, that node's
replicas only. A replica that differs must name, in the plan's own output for it, an assumption that accounts for
the difference (EXPLAINS: the leader's dirs not given, the HW taken from the checkpoint, the leader elected on
restart assumed, the upload state unknown). Only a plan that keeps more than the broker can be explained so; one
that deletes, merges or cleans what the broker kept acted on a guess, and fails like an unexplained difference.
"""
import json
import sys

SKIP_TOPICS = {"__cluster_metadata"}


def plan_partitions(doc, by_replica=False):
    """(topic, partition) -> plan partition object; accepts top-level partitions[] or log_dirs[].partitions[].
    by_replica (multi-broker replays): keyed by (node-N/logs-M, topic, partition), the log dir's last two parts."""
    parts = list(doc.get("partitions") or [])
    for d in doc.get("log_dirs") or []:
        parts.extend(d.get("partitions") or [])
    if by_replica:
        return {("/".join(p["log_dir"].rstrip("/").split("/")[-2:]), p["topic"], int(p["partition"])): p
                for p in parts}
    return {(p["topic"], int(p["partition"])): p for p in parts}


def verdicts(plan_part):
    return {int(s["base_offset"]): s for s in plan_part.get("segments") or []}


class Result:
    def __init__(self):
        self.agree = 0
        self.differ = []  # (partition label, what)
        self.time_sensitive = 0
        self.excluded_merged = 0
        self.not_replayed = 0
        self.moved = 0
        self.rows = []
        # Each difference as (label, what, kind, replica key, the plan's retain reason kind or None), for
        # --single-node (kinds: see EXPLAINS).
        self.details = []

    def diff(self, label, what, kind, key=None, reason=None):
        self.differ.append((label, what))
        self.details.append((label, what, kind, key, reason))

    def ok(self):
        return not self.differ


def compare(scenario, replay, plan_start, plan_end, node=None):
    """node: compare only that node's replicas (a multi-broker replay; --single-node)."""
    res = Result()
    cluster = "nodes_started" in replay
    ps, pe = plan_partitions(plan_start, cluster), plan_partitions(plan_end, cluster)
    for rp in replay["partitions"]:
        if rp["topic"] in SKIP_TOPICS:
            continue
        if node is not None and rp.get("node_id") != node:
            continue
        key = (rp["topic"], int(rp["partition"]))
        label = f"{rp['topic']}-{rp['partition']}"
        if cluster:
            # One replica per node: compared per replica; a node stopped before capture was not replayed.
            key = (rp["log_dir"], rp["topic"], int(rp["partition"]))
            label = f"{rp['log_dir']}/{label}"
            if not rp.get("replayed"):
                res.not_replayed += 1
                continue
        a, b = ps.get(key), pe.get(key)
        if a is None or b is None:
            res.diff(label, "partition missing from the plan", "missing", key)
            res.rows.append((label, "-", "-", "-", "-", "MISSING"))
            continue
        notes = []
        deleted = set(rp["deleted"])
        cleaned = bool(rp.get("cleaned"))
        ckpt_after = rp.get("cleaner_checkpoint_after")
        va, vb = verdicts(a), verdicts(b)
        after = set(rp.get("segments_after") or [])
        modelled = any(s.get("verdict") == "merge" for s in list(va.values()) + list(vb.values()))
        plan_del = []
        n_diff_before = len(res.differ)
        # An intra-broker move that finished during the run (Replay's moved_to): the future replica took the
        # source's place, and the source's segments went with the move, not by retention. Only the log start
        # is compared (the replica's wherever it lives now).
        moved = rp.get("moved_to")
        if moved:
            res.moved += 1
        for base in ([] if moved else rp["segments_before"]):
            sa, sb = va.get(base), vb.get(base)
            if sa is None or sb is None:
                res.diff(label, f"segment {base}: no verdict in the plan", "missing", key)
                continue
            if sa["verdict"] != sb["verdict"] or sa.get("merged_into") != sb.get("merged_into"):
                res.time_sensitive += 1
                continue
            if sa["verdict"] == "merge":
                into = sa.get("merged_into")
                into_kept = (va.get(into) or {}).get("verdict") == "retain"
                if not cleaned:
                    res.diff(label, f"segment {base}: plan merges it into {into}, broker did not clean", "deletes_kept", key)
                elif base in after:
                    res.diff(label, f"segment {base}: plan merges it into {into}, broker kept it", "deletes_kept", key)
                elif into_kept and into not in after:
                    res.diff(label, f"segment {base}: merged into {into}, which the broker does not have", "other", key)
                else:
                    res.agree += 1
                continue
            if cleaned and ckpt_after is not None and base < ckpt_after:
                if not modelled:
                    res.excluded_merged += 1
                    continue
                # The plan modelled the cleaning: what it keeps below the checkpoint must be there.
                if sa["verdict"] == "retain" and base not in after:
                    res.diff(label, f"segment {base}: plan keeps it (cleaned), broker has no such segment", "retains_deleted",
                             key, "cleaned")
                elif sa["verdict"] == "delete" and base in after:
                    res.diff(label, f"segment {base}: plan deletes it (cleaned), broker kept it", "deletes_kept", key)
                else:
                    res.agree += 1
                continue
            want = sa["verdict"] == "delete"
            # A follower's truncation deletes the segment, and its refetch from the leader creates one at the
            # same base again (the plan's truncation.refetched): the broker then still has that base.
            if want and (sa.get("truncation") or {}).get("refetched") and (sb.get("truncation") or {}).get("refetched"):
                want = False
            if want:
                plan_del.append(base)
            got = base in deleted
            if want == got:
                res.agree += 1
            else:
                what = "broker deleted it, plan says retain" if got else "plan says delete, broker kept it"
                res.diff(label, f"segment {base}: {what} (pass {sa.get('pass')}, reason {reason_kind(sa) or sa.get('reason')!r})",
                         "retains_deleted" if got else "deletes_kept", key, reason_kind(sa))
        # A follower's truncation (the plan's follower_epoch_truncation note): its refetch from the leader creates
        # the segments the leader has from the truncation offset to its log end that the replica did not have.
        trunc = next((n for n in a.get("notes") or [] if n.get("kind") == "follower_epoch_truncation"), None)
        if cluster and trunc and not moved:
            ev = {e["name"]: e["value"] for e in trunc.get("evidence") or []}
            lead = [q for k, q in ps.items() if k[0].startswith(f"node-{ev['leader']}/") and k[1:] == key[1:]]
            want_new = {int(x["base_offset"]) for q in lead for x in q.get("segments") or []
                        if ev["truncates_to"] <= int(x["base_offset"]) < ev["leader_log_end_offset"]}
            want_new -= set(rp["segments_before"])
            got_new = set(rp.get("created") or [])
            if want_new == got_new:
                res.agree += 1
            else:
                res.diff(label, f"refetch after the truncation to {ev['truncates_to']}: broker created "
                                f"{fmt(sorted(got_new))}, plan (the leader's bases) {fmt(sorted(want_new))}", "other", key)
        # log start offset
        ls = rp.get("log_start_offset")
        la, lb = a.get("log_start_offset_after"), b.get("log_start_offset_after")
        if la == lb:
            if ls == la:
                res.agree += 1
            else:
                res.diff(label, f"log start: broker {ls}, plan {la}", log_start_kind(ls, [la]), key)
        else:
            res.time_sensitive += 1
            if ls not in (la, lb):
                res.diff(label, f"log start: broker {ls}, plan {la} (start) / {lb} (end)", log_start_kind(ls, [la, lb]),
                         key)
        comp = "-"
        ca, cb = a.get("compaction"), b.get("compaction")
        compacted = "compact" in (rp.get("cleanup_policy") or "").split(",")
        if ca is not None or cb is not None or cleaned or compacted:
            if ca is None or cb is None:
                what = "broker cleaned it" if cleaned else f"cleanup.policy={rp.get('cleanup_policy')}"
                res.diff(label, f"{what}, plan has no compaction object", "missing", key)
            else:
                # The checkpoint moves when the cleaner cleans, or when the retention after it raised
                # the log start above the entry (the cleaner resets it: `checkpoint_after`).
                before = rp.get("cleaner_checkpoint_before")

                def moves(c):
                    if "checkpoint_after" in c:
                        return bool(c.get("will_clean")) or c["checkpoint_after"] not in (None, before)
                    return bool(c.get("will_clean"))

                wa, wb = moves(ca), moves(cb)
                if wa != wb:
                    res.time_sensitive += 1
                    if cleaned and not (wa or wb):
                        res.diff(label, "broker cleaned it, plan says will_clean false", "cleans_less", key)
                elif wa == cleaned:
                    res.agree += 1
                else:
                    res.diff(label, f"cleaned: broker {cleaned}, plan will_clean {ca.get('will_clean')} "
                                    f"(blocked_by {ca.get('blocked_by')!r})", "cleans_less" if cleaned else "cleans_more", key)
                if cleaned and (wa or wb):
                    def ckpt(c):
                        return c["checkpoint_after"] if "checkpoint_after" in c else c.get("clean_up_to")
                    want = {ckpt(ca) if wa else None, ckpt(cb) if wb else None} - {None}
                    if ckpt_after in want:
                        res.agree += 1
                    else:
                        name = "checkpoint_after" if "checkpoint_after" in ca else "clean_up_to"
                        res.diff(label, f"cleaner checkpoint: broker {ckpt_after}, plan {name} {sorted(want)}",
                                 "cleans_less" if ckpt_after is not None and all(w < ckpt_after for w in want)
                                 else "cleans_more", key)
                comp = ("cleaned" if cleaned else "not cleaned") + "/" + ("will" if wa else "won't")
        status = "ok" if len(res.differ) == n_diff_before else "DIFF"
        res.rows.append((label, fmt(sorted(deleted)), fmt(plan_del), f"{ls}/{la}", comp, status))
    return res


CLEANER_FIRST_RUN_MS = 65_000  # 60 s after the raft client starts (before ready), plus slack


def cleaner_log_start(diag):
    """The metadata cleaner's next log start from a diagnose document (None: it deletes nothing)."""
    for f in diag.get("findings") or []:
        if f.get("code") != "metadata.log_redundant":
            continue
        for e in f.get("evidence") or []:
            if e.get("name") == "cleaner_log_start":
                return int(e["value"])
    return None


def compare_metadata_log(replay, diags, res):
    """The metadata log cleaner's deletions vs logclean's prediction at any of the instants `diags` were taken at
    (see the module doc)."""
    ml = replay.get("metadata_log")
    if ml is None:
        return
    w = replay["window"]
    label = f"{ml['log_dir']}/__cluster_metadata-0"
    if w.get("settled_ms", w["stop_ms"]) - w["ready_ms"] < CLEANER_FIRST_RUN_MS:
        print(f"   {label}: not compared (the window ended before the metadata log cleaner's first run)")
        return
    starts = list(dict.fromkeys(cleaner_log_start(d) for d in diags))  # distinct, in time order
    if len(starts) > 1:
        res.time_sensitive += 1
    segs = [int(x) for x in ml["segments_before"]]
    snaps = ml["snapshots_before"]
    got_segs = {int(x) for x in ml["segments_deleted"]}
    got_snaps = set(ml["snapshots_deleted"])
    matched = None
    for start in starts:
        want_segs = set() if start is None else {b for b, n in zip(segs, segs[1:]) if n <= start}
        want_snaps = set() if start is None else {x for x in snaps if int(x.split("-")[0]) < start}
        if want_segs == got_segs and want_snaps == got_snaps:
            matched = start
    deleted = f"{len(got_segs)} seg / {len(got_snaps)} snap"
    predicted = "/".join(str(x) for x in starts)
    if matched is not None or (all(x is None for x in starts) and not got_segs and not got_snaps):
        res.agree += 1
        res.rows.append((label, deleted, f"log start {matched}", "-", "metadata cleaner", "ok"))
    else:
        # Whole lists, not fmt's cut: the one difference seen (CI, session 12) could not be told from its tail;
        # and the broker's own lines for its cleaner's runs (when each ran, what it marked).
        res.diff(label, f"metadata cleaner: broker deleted segments {sorted(got_segs)} and snapshots "
                        f"{sorted(got_snaps)} of segments {segs} and snapshots {snaps}; logclean's "
                        f"cleaner_log_start over the window {predicted}; window {w}; the broker's cleaner lines: "
                        f"{ml.get('cleaner_log') or 'none'}", "other")
        res.rows.append((label, deleted, f"log start {predicted}", "-", "metadata cleaner", "DIFF"))


def log_start_kind(broker, plan_values):
    """A log start difference: the plan's below the broker's (it keeps records the broker dropped), or not."""
    ok = broker is not None and all(v is not None and v < broker for v in plan_values)
    return "log_start_low" if ok else "log_start_high"


# --single-node: what a plan over one node's dirs alone names that it assumed, per replica. The codes are logclean's
# own (plan JSON): the HW's basis (`high_watermark.kind`), where the replica's role came from (the HW evidence
# `role_source`), a note (`notes[].kind`), a segment kept on an unknown upload state.
ASSUMED_HW = {"follower_checkpoint_assumed", "checkpoint_assumed"}
ASSUMED_ROLE = {"leader_dirs_not_given", "restart_election_assumed", "no_leader_in_metadata", "not_in_metadata",
                "zookeeper_mode"}
ASSUMED_NOTES = {"follower_leader_not_given", "tiered_approximate"}
ASSUMED_REASONS = {"upload_unknown"}

# Which assumptions can account for which difference. Only a plan that keeps more than the broker did (it retains a
# segment the broker deleted, its log start is lower, it cleans less) can come from an assumption, as every assumed
# value is taken on the safe side (a follower's own log start when its leader's is unknown, the checkpointed HW, an
# upload not taken for done). A plan that deletes, merges or cleans what the broker kept, or raises the log start past
# the broker's, acted on a guess: never explained (kinds deletes_kept, log_start_high, cleans_more). Neither is a
# replica or segment missing from the plan (missing), nor a segment merged elsewhere (other).
#
# The HW: a segment kept below an HW gate, a cleaner stopped at it.
BY_HW = ["follower_checkpoint_assumed", "checkpoint_assumed", "restart_election_assumed", "no_leader_in_metadata",
         "not_in_metadata", "zookeeper_mode"]
# The leader's log start: a follower takes its leader's higher one and deletes below it (or truncates fully below
# it) whatever its own retention says; unknown when the leader's dirs are not given, or when which replica leads is
# only assumed (the replica taken for the leader may follow another).
BY_LEADER_LOG_START = ["follower_leader_not_given", "restart_election_assumed", "no_leader_in_metadata",
                       "not_in_metadata", "zookeeper_mode"]
# The upload state of a tiered segment.
BY_UPLOAD = ["upload_unknown", "tiered_approximate"]
# retains_deleted, by the plan's reason to keep the segment: an HW gate, an unknown upload, being merged by the
# cleaner (how far it cleans), else (not expired, within size, unlimited, ...) only a leader's log start deletes it.
RETAINED_BY = {"hw_below_upper_bound": BY_HW, "upload_unknown": BY_UPLOAD, "cleaned": BY_HW}
EXPLAINS = {
    "retains_deleted": BY_LEADER_LOG_START,  # refined by RETAINED_BY
    # The log start moves by deletions (the replica's segment differences say which assumption) or by the leader's.
    "log_start_low": BY_LEADER_LOG_START,
    # The cleaner stops at the HW (and the last stable offset below it).
    "cleans_less": BY_HW,
}


def named_assumptions(plan_part):
    """The assumption codes a plan partition names (see ASSUMED_*)."""
    if plan_part is None:
        return set()
    out = set()
    hw = plan_part.get("high_watermark") or {}
    if hw.get("kind") in ASSUMED_HW:
        out.add(hw["kind"])
    for e in hw.get("evidence") or []:
        if e.get("name") == "role_source" and e.get("value") in ASSUMED_ROLE:
            out.add(e["value"])
    for n in plan_part.get("notes") or []:
        if n.get("kind") in ASSUMED_NOTES:
            out.add(n["kind"])
    for sg in plan_part.get("segments") or []:
        if reason_kind(sg) in ASSUMED_REASONS:
            out.add(reason_kind(sg))
    return out


def reason_kind(seg):
    """A plan segment's reason kind (None: none, or not an object)."""
    r = (seg or {}).get("reason")
    return r.get("kind") if isinstance(r, dict) else None


def explains(kind, reason):
    """The assumption codes that can account for a difference of `kind` (the plan's retain reason `reason`)."""
    if kind == "retains_deleted" and reason in RETAINED_BY:
        return RETAINED_BY[reason]
    return EXPLAINS.get(kind, [])


def explain(res, plan_start, plan_end):
    """Each replica of a --single-node comparison: (label, status, [(what, kind, explained by)]), status one of
    "agree", "differ-explained", "differ-unexplained". A difference is explained when the plan's own output for that
    replica (at the window's start or end) names an assumption that can account for its kind; a lower log start also
    by what explains the replica's kept segments (its log start follows its deletions)."""
    ps, pe = plan_partitions(plan_start, True), plan_partitions(plan_end, True)
    by_replica = {}
    for label, what, kind, key, reason in res.details:
        named = (named_assumptions(ps.get(key)) | named_assumptions(pe.get(key))) if key is not None else set()
        by_replica.setdefault(label, []).append([what, kind, [c for c in explains(kind, reason) if c in named]])
    for diffs in by_replica.values():
        kept = [c for _, kind, by in diffs if kind == "retains_deleted" for c in by]
        for d in diffs:
            if d[1] == "log_start_low":
                d[2] = d[2] + [c for c in dict.fromkeys(kept) if c not in d[2]]
    out = []
    for row in res.rows:
        label = row[0]
        diffs = [tuple(d) for d in by_replica.pop(label, [])]
        if not diffs:
            out.append((label, "agree", []))
        elif all(by for _, _, by in diffs):
            out.append((label, "differ-explained", diffs))
        else:
            out.append((label, "differ-unexplained", diffs))
    for label, diffs in by_replica.items():  # a difference outside the rows (the metadata log)
        out.append((label, "differ-unexplained", [tuple(d) for d in diffs]))
    return out


def print_single_node(scenario, node, res, replicas):
    """The --single-node report of one node: per replica agree / differ-explained (by what) / differ-unexplained."""
    print(f"-- {scenario} node {node} alone")
    for label, status, diffs in replicas:
        if status == "agree":
            print(f"   {label}: agree")
            continue
        print(f"   {label}: {status}")
        for what, kind, by in diffs:
            why = f"explained by {', '.join(by)}" if by else "NOT EXPLAINED by any assumption the plan names"
            print(f"      {what} [{kind}]: {why}")
    count = {k: sum(1 for _, s, _ in replicas if s == k) for k in ("agree", "differ-explained", "differ-unexplained")}
    print(f"   {scenario} node {node}: {count['agree']} agree, {count['differ-explained']} differ-explained, "
          f"{count['differ-unexplained']} differ-unexplained, {res.not_replayed} not replayed (replicas; not "
          f"replayed: on a node stopped before capture that the replay left stopped); checks: {res.agree} agree, {len(res.differ)} differ, "
          f"{res.time_sensitive} time-sensitive")
    return count["differ-unexplained"] == 0


def fmt(xs):
    if not xs:
        return "-"
    s = ",".join(str(x) for x in xs)
    return s if len(s) <= 28 else s[:25] + "..."


def print_table(scenario, res):
    print(f"-- {scenario}")
    w = [max(len(r[i]) for r in res.rows + [HEAD]) for i in range(len(HEAD))]
    for r in [HEAD] + res.rows:
        print("   " + "  ".join(c.ljust(w[i]) for i, c in enumerate(r)))
    print(f"   {scenario}: {res.agree} agree, {len(res.differ)} differ, {res.time_sensitive} time-sensitive "
          f"(not compared strictly), {res.excluded_merged} merged by the cleaner (not compared)"
          + (f", {res.not_replayed} replica(s) on nodes stopped before capture (not replayed)"
             if res.not_replayed else "")
          + (f", {res.moved} replica(s) moved between log dirs during the run (log start compared, segments not)"
             if res.moved else ""))
    for label, what in res.differ:
        print(f"   DIFF {label}: {what}")


HEAD = ("partition", "broker deleted", "plan delete", "log start b/p", "compaction b/p", "")


def oracle(scenario, replay):
    w = replay["window"]
    print(f"-- {scenario}: broker window start {w['start_ms']} ready {w['ready_ms']} stop {w['stop_ms']}"
          f"{' TIMED OUT' if replay.get('timed_out') else ''}")
    for a in replay.get("adjustments") or []:
        print(f"   adjustment: {a}")
    for p in replay["partitions"]:
        if p["topic"] in SKIP_TOPICS:
            continue
        ck = ""
        if p.get("cleaner_checkpoint_before") is not None or p.get("cleaner_checkpoint_after") is not None:
            ck = f" cleaner ckpt {p['cleaner_checkpoint_before']}->{p['cleaner_checkpoint_after']}"
        print(f"   {p['log_dir']}/{p['topic']}-{p['partition']}: segs {fmt(p['segments_before'])} -> "
              f"{fmt(p['segments_after'])}; deleted {fmt(p['deleted'])}; created {fmt(p['created'])}; "
              f"log start {p['log_start_offset']} HW {p.get('high_watermark')}{ck}")


def main(argv):
    if len(argv) == 3 and argv[0] == "--oracle":
        oracle(argv[1], json.load(open(argv[2])))
        return 0
    if len(argv) == 6 and argv[0] == "--single-node":
        node, scenario = int(argv[1]), argv[2]
        replay, a, b = (json.load(open(x)) for x in argv[3:6])
        res = compare(scenario, replay, a, b, node=node)
        return 0 if print_single_node(scenario, node, res, explain(res, a, b)) else 1
    if len(argv) < 4 or len(argv) == 5:
        print(__doc__, file=sys.stderr)
        return 2
    scenario = argv[0]
    replay, a, b = (json.load(open(x)) for x in argv[1:4])
    res = compare(scenario, replay, a, b)
    if len(argv) > 4:
        compare_metadata_log(replay, [json.load(open(x)) for x in argv[4:]], res)
    print_table(scenario, res)
    return 0 if res.ok() else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
