#!/usr/bin/env python3
"""Unit tests of plan_compare.py on hand-written replay / plan documents, and of its --single-node explanations on a
recorded replay (conformance/oracle) (run: python3 -m unittest, or directly)."""
import contextlib
import copy
import io
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plan_compare  # noqa: E402

# What a broker did (shape of Replay's replay.json): orders-0 lost 0 and 4 by time; compacted-0 was cleaned up
# to 69, which merged 35..58 into 0; compacted-1 was not cleaned.
REPLAY = {
    "window": {"start_ms": 1000, "ready_ms": 4000, "settled_ms": 9000, "stop_begin_ms": 9100, "stop_ms": 9600},
    "timed_out": False,
    "partitions": [
        {"log_dir": "logs-0", "topic": "__cluster_metadata", "partition": 0, "segments_before": [0],
         "segments_after": [0], "deleted": [], "created": [], "log_start_offset": None, "high_watermark": None,
         "cleaner_checkpoint_before": None, "cleaner_checkpoint_after": None, "cleaned": False},
        {"log_dir": "logs-0", "topic": "orders", "partition": 0, "segments_before": [0, 4, 8],
         "segments_after": [8], "deleted": [0, 4], "created": [], "log_start_offset": 8, "high_watermark": 12,
         "cleanup_policy": "delete",
         "cleaner_checkpoint_before": None, "cleaner_checkpoint_after": None, "cleaned": False},
        {"log_dir": "logs-1", "topic": "compacted", "partition": 0, "segments_before": [0, 35, 36, 47, 58, 69],
         "segments_after": [0, 69], "deleted": [35, 36, 47, 58], "created": [], "log_start_offset": 0,
         "high_watermark": 76, "cleanup_policy": "compact", "cleaner_checkpoint_before": 35, "cleaner_checkpoint_after": 69, "cleaned": True},
        {"log_dir": "logs-1", "topic": "compacted", "partition": 1, "segments_before": [0, 35, 36],
         "segments_after": [0, 35, 36], "deleted": [], "created": [], "log_start_offset": 0, "high_watermark": 38,
         "cleanup_policy": "compact",
         "cleaner_checkpoint_before": 35, "cleaner_checkpoint_after": 35, "cleaned": False},
    ],
}


def seg(base, verdict, pass_=None, reason="x"):
    return {"base_offset": base, "verdict": verdict, "pass": pass_, "reason": reason,
            "eligible_at_ms": None, "gone_by_ms": None}


def comp(will, up_to, blocked=None):
    return {"dirty_ratio": 0.7, "min_cleanable_dirty_ratio": 0.5, "first_dirty_offset": 35,
            "first_uncleanable_offset": up_to, "will_clean": will, "clean_up_to": up_to, "blocked_by": blocked}


# The matching plan (envelope as README documents it, partitions[] at the top level).
PLAN = {
    "tool": "logclean 0.1.0", "command": "plan", "schema_version": 2, "evaluated_at_ms": 1000,
    "partitions": [
        {"log_dir": "/x/logs-0", "topic": "orders", "partition": 0, "log_start_offset_after": 8,
         "segments": [seg(0, "delete", "time"), seg(4, "delete", "time"), seg(8, "retain")]},
        {"log_dir": "/x/logs-1", "topic": "compacted", "partition": 0, "log_start_offset_after": 0,
         "segments": [seg(b, "retain") for b in (0, 35, 36, 47, 58, 69)], "compaction": comp(True, 69)},
        {"log_dir": "/x/logs-1", "topic": "compacted", "partition": 1, "log_start_offset_after": 0,
         "segments": [seg(b, "retain") for b in (0, 35, 36)], "compaction": comp(False, 36, "dirty ratio")},
    ],
    "findings": [], "summary": {},
}


def part(plan, topic, p):
    return next(x for x in plan["partitions"] if x["topic"] == topic and x["partition"] == p)


class CompareTest(unittest.TestCase):
    def run_cmp(self, start, end=None):
        return plan_compare.compare("t", REPLAY, start, end if end is not None else start)

    def test_matching_plan_agrees(self):
        r = self.run_cmp(PLAN)
        self.assertEqual(r.differ, [])
        # orders-0: 3 segments + log start; compacted-0: segment 69 + log start + will_clean + clean_up_to;
        # compacted-1: 3 segments + log start + will_clean. Segments 0..58 of compacted-0 were merged.
        self.assertEqual(r.agree, 4 + 4 + 5)
        self.assertEqual(r.excluded_merged, 5)
        self.assertEqual(r.time_sensitive, 0)

    def test_modelled_merges_are_checked_against_the_segments_left(self):
        # The plan modelled compacted-0's cleaning: 35..58 merge into 0, which is kept.
        p = copy.deepcopy(PLAN)
        segs = part(p, "compacted", 0)["segments"]
        for s in segs[1:5]:
            s.update(verdict="merge", merged_into=0, reason={"kind": "merged_by_cleaner"})
        r = self.run_cmp(p)
        self.assertEqual(r.differ, [])
        # 0 kept and present, 35..58 merged and gone: compared, not excluded.
        self.assertEqual(r.excluded_merged, 0)
        self.assertEqual(r.agree, 4 + 9 + 5)
        # A merge into a segment the broker does not have, or of a segment the broker kept.
        q = copy.deepcopy(p)
        for s in part(q, "compacted", 0)["segments"][2:5]:
            s["merged_into"] = 35
        part(q, "compacted", 0)["segments"][1].update(verdict="retain", merged_into=None)
        r = self.run_cmp(q)
        whats = [w for _, w in r.differ]
        self.assertIn("segment 35: plan keeps it (cleaned), broker has no such segment", whats)
        self.assertIn("segment 36: merged into 35, which the broker does not have", whats)
        # A merge where the broker did not clean.
        q = copy.deepcopy(PLAN)
        part(q, "compacted", 1)["segments"][1].update(verdict="merge", merged_into=0)
        r = self.run_cmp(q)
        self.assertEqual(r.differ, [("compacted-1", "segment 35: plan merges it into 0, broker did not clean")])

    def test_wrong_verdict_is_a_difference(self):
        p = copy.deepcopy(PLAN)
        part(p, "orders", 0)["segments"][1] = seg(4, "retain")
        r = self.run_cmp(p)
        self.assertEqual(len(r.differ), 1)
        self.assertIn("segment 4: broker deleted it, plan says retain", r.differ[0][1])
        p = copy.deepcopy(PLAN)
        part(p, "orders", 0)["segments"][2] = seg(8, "delete", "time")
        r = self.run_cmp(p)
        self.assertIn("segment 8: plan says delete, broker kept it", r.differ[0][1])

    def test_log_start_mismatch(self):
        p = copy.deepcopy(PLAN)
        part(p, "orders", 0)["log_start_offset_after"] = 4
        r = self.run_cmp(p)
        self.assertEqual(r.differ, [("orders-0", "log start: broker 8, plan 4")])

    def test_time_sensitive_verdicts_are_not_compared_strictly(self):
        early = copy.deepcopy(PLAN)
        o = part(early, "orders", 0)
        o["segments"][1] = seg(4, "retain")
        o["log_start_offset_after"] = 4
        r = self.run_cmp(early, PLAN)
        self.assertEqual(r.differ, [])
        self.assertEqual(r.time_sensitive, 2)
        # ... but the broker's log start must be one of the two
        late = copy.deepcopy(PLAN)
        part(late, "orders", 0)["log_start_offset_after"] = 6
        r = self.run_cmp(early, late)
        self.assertEqual(len(r.differ), 1)
        self.assertIn("log start: broker 8, plan 4 (start) / 6 (end)", r.differ[0][1])

    def test_will_clean_and_clean_up_to(self):
        p = copy.deepcopy(PLAN)
        part(p, "compacted", 0)["compaction"] = comp(False, 69, "min.cleanable.dirty.ratio")
        r = self.run_cmp(p)
        self.assertTrue(any("cleaned: broker True, plan will_clean False" in w for _, w in r.differ))
        p = copy.deepcopy(PLAN)
        part(p, "compacted", 0)["compaction"] = comp(True, 58)
        r = self.run_cmp(p)
        self.assertEqual(r.differ, [("compacted-0", "cleaner checkpoint: broker 69, plan clean_up_to [58]")])
        p = copy.deepcopy(PLAN)
        part(p, "compacted", 1)["compaction"] = comp(True, 36)
        r = self.run_cmp(p)
        self.assertEqual(len(r.differ), 1)
        self.assertIn("cleaned: broker False, plan will_clean True", r.differ[0][1])

    def test_checkpoint_reset_to_the_new_log_start(self):
        # The retention after the clean raised the log start above the entry: the cleaner reset it.
        p = copy.deepcopy(PLAN)
        c = comp(True, 58)
        c["checkpoint_after"] = 69
        part(p, "compacted", 0)["compaction"] = c
        self.assertEqual(self.run_cmp(p).differ, [])
        c["checkpoint_after"] = 58
        self.assertEqual(self.run_cmp(p).differ,
                         [("compacted-0", "cleaner checkpoint: broker 69, plan checkpoint_after [58]")])
        # No clean, but a reset moves the entry: the broker's checkpoint changed, and that agrees.
        c = comp(False, 69, "min.cleanable.dirty.ratio")
        c["checkpoint_after"] = 69
        part(p, "compacted", 0)["compaction"] = c
        self.assertEqual(self.run_cmp(p).differ, [])

    def test_cleaned_partition_without_compaction_object(self):
        p = copy.deepcopy(PLAN)
        del part(p, "compacted", 0)["compaction"]
        r = self.run_cmp(p)
        self.assertEqual(r.differ, [("compacted-0", "broker cleaned it, plan has no compaction object")])

    def test_compacted_partition_without_compaction_object(self):
        p = copy.deepcopy(PLAN)
        del part(p, "compacted", 1)["compaction"]
        r = self.run_cmp(p)
        self.assertEqual(r.differ, [("compacted-1", "cleanup.policy=compact, plan has no compaction object")])

    def test_missing_partition_and_segment(self):
        p = copy.deepcopy(PLAN)
        p["partitions"] = [x for x in p["partitions"] if x["topic"] != "orders"]
        r = self.run_cmp(p)
        self.assertEqual(r.differ, [("orders-0", "partition missing from the plan")])
        p = copy.deepcopy(PLAN)
        part(p, "compacted", 1)["segments"].pop()
        r = self.run_cmp(p)
        self.assertEqual(r.differ, [("compacted-1", "segment 36: no verdict in the plan")])

    def test_partitions_nested_under_log_dirs(self):
        p = copy.deepcopy(PLAN)
        p["log_dirs"] = [{"path": "/x/logs-0", "partitions": p.pop("partitions")}]
        self.assertEqual(self.run_cmp(p).differ, [])

    def test_metadata_partition_is_ignored(self):
        self.assertNotIn(("__cluster_metadata", 0), plan_compare.plan_partitions(PLAN))
        self.assertEqual(self.run_cmp(PLAN).differ, [])


    def metadata_case(self, deleted_segs, deleted_snaps, ready=4000, settled=74000):
        r = copy.deepcopy(REPLAY)
        r["window"]["ready_ms"], r["window"]["settled_ms"] = ready, settled
        segs, snaps = ["0", "25", "49", "67"], ["00000000000000000000-0000000000", "00000000000000000026-0000000001",
                                                "00000000000000000050-0000000001"]
        r["metadata_log"] = {"log_dir": "logs-0", "segments_before": segs, "snapshots_before": snaps,
                             "segments_deleted": deleted_segs, "snapshots_deleted": deleted_snaps}
        return r

    @staticmethod
    def diag(start):
        ev = [{"name": "snapshot", "kind": "text", "value": "x"}]
        if start is not None:
            ev.append({"name": "cleaner_log_start", "kind": "offset", "value": start})
        return {"findings": [{"code": "metadata.log_redundant", "evidence": ev}]}

    def test_metadata_cleaner_deletions_match_the_predicted_log_start(self):
        # Log start 50: segments 0 and 25 (next bases 25, 49 <= 50) go, 49 holds offset 50 and stays; the
        # snapshots ending at 0 and 26 go, the one at 50 stays.
        r = self.metadata_case(["0", "25"], ["00000000000000000000-0000000000", "00000000000000000026-0000000001"])
        res = plan_compare.compare("s", r, PLAN, PLAN)
        plan_compare.compare_metadata_log(r, [self.diag(50), self.diag(50)], res)
        self.assertEqual(res.differ, [])
        # The broker kept segment 25: a difference.
        r = self.metadata_case(["0"], ["00000000000000000000-0000000000", "00000000000000000026-0000000001"])
        res = plan_compare.compare("s", r, PLAN, PLAN)
        plan_compare.compare_metadata_log(r, [self.diag(50), self.diag(50)], res)
        self.assertEqual(len(res.differ), 1)
        self.assertIn("metadata cleaner", res.differ[0][1])
        # logclean predicts nothing (no cleaner_log_start) but the broker deleted: a difference.
        r = self.metadata_case(["0"], [])
        res = plan_compare.compare("s", r, PLAN, PLAN)
        plan_compare.compare_metadata_log(r, [self.diag(None), {"findings": []}], res)
        self.assertEqual(len(res.differ), 1)

    def test_metadata_cleaner_may_run_at_any_expiry_inside_the_window(self):
        # Snapshots expiring one by one inside the window: at its start none (no log start), at an instant inside
        # it 26, at its end 50. A cleaner run at the middle instant deleted segment 0 and the snapshot at 0: it
        # agrees (time-sensitive); a deletion no instant predicts (segment 25 alone) differs.
        r = self.metadata_case(["0"], ["00000000000000000000-0000000000"])
        res = plan_compare.compare("s", r, PLAN, PLAN)
        plan_compare.compare_metadata_log(r, [self.diag(None), self.diag(26), self.diag(50)], res)
        self.assertEqual(res.differ, [])
        self.assertEqual(res.time_sensitive, 1)
        r = self.metadata_case(["25"], [])
        res = plan_compare.compare("s", r, PLAN, PLAN)
        plan_compare.compare_metadata_log(r, [self.diag(None), self.diag(26), self.diag(50)], res)
        self.assertEqual(len(res.differ), 1)
        self.assertIn("None/26/50", res.differ[0][1])

    def test_metadata_log_not_compared_before_the_cleaners_first_run(self):
        r = self.metadata_case(["0"], [], settled=20000)
        res = plan_compare.compare("s", r, PLAN, PLAN)
        plan_compare.compare_metadata_log(r, [self.diag(50), self.diag(50)], res)
        self.assertEqual(res.differ, [])


# --single-node on a real replay: rf3-follower-restart (conformance/oracle), where node 3 was stopped while the
# leader (node 1) wrote and DeleteRecords moved its log start to 6 (lagging-0) and 3 (lagging-1). Restarted, node 3
# truncated lagging-0 fully and restarted at 6, and took lagging-1's log start 3, deleting 0-2.
FOLLOWER_RESTART = os.path.join(os.path.dirname(os.path.abspath(__file__)), "oracle", "rf3-follower-restart.replay.json")


def alone_plan(replay, node, shape):
    """A plan over `node`'s dirs alone, in logclean's JSON shape (its fields as `plan --format json` writes them
    for the node's replicas); `shape(replica, partition)` fills in verdicts, log start, HW and notes."""
    parts = []
    for rp in replay["partitions"]:
        if rp.get("node_id") != node:
            continue
        p = {"log_dir": f"/fixtures/rf3-follower-restart/{rp['log_dir']}", "topic": rp["topic"],
             "partition": rp["partition"], "log_start_offset": 0, "log_start_offset_after": 0, "notes": [],
             "segments": [seg(b, "retain", None, {"kind": "retention_unlimited"}) for b in rp["segments_before"]]}
        shape(rp, p)
        parts.append(p)
    return {"command": "plan", "schema_version": 2, "partitions": parts, "findings": []}


def hw(kind, role_source):
    return {"kind": kind, "text": "HW", "evidence": [{"name": "high_watermark", "kind": "offset", "value": 4},
                                                       {"name": "role_source", "kind": "text", "value": role_source}]}


def follower_without_leader(rp, p):
    # What logclean says of node 3 alone: the leader's dirs not given, so its own log start (0) and retention
    # (unlimited: keeps everything) are assumed, and the HW is the checkpoint's.
    p["high_watermark"] = hw("follower_checkpoint_assumed", "leader_dirs_not_given")
    p["notes"] = [{"kind": "follower_leader_not_given", "text": "...", "evidence": []}]


class SingleNodeTest(unittest.TestCase):
    def setUp(self):
        with open(FOLLOWER_RESTART) as f:
            self.replay = json.load(f)

    def single(self, node, plan):
        res = plan_compare.compare("rf3-follower-restart", self.replay, plan, plan, node=node)
        replicas = plan_compare.explain(res, plan, plan)
        with contextlib.redirect_stdout(io.StringIO()) as out:
            ok = plan_compare.print_single_node("rf3-follower-restart", node, res, replicas)
        return ok, {label: (status, diffs) for label, status, diffs in replicas}, out.getvalue()

    def test_a_follower_without_its_leaders_dirs_differs_explained(self):
        ok, r, out = self.single(3, alone_plan(self.replay, 3, follower_without_leader))
        self.assertTrue(ok, out)
        status, diffs = r["node-3/logs-0/lagging-0"]
        self.assertEqual(status, "differ-explained")
        # Segments 0-3 deleted by the broker (the full truncation), the log start 6 against the plan's 0: each
        # accounted for by the assumption the plan names.
        self.assertEqual([(k, by) for _, k, by in diffs],
                         [("retains_deleted", ["follower_leader_not_given"])] * 4
                         + [("log_start_low", ["follower_leader_not_given"])])
        self.assertEqual(r["node-3/logs-0/lagging-1"][0], "differ-explained")
        self.assertIn("rf3-follower-restart node 3: 0 agree, 2 differ-explained, 0 differ-unexplained", out)

    def test_the_same_difference_without_a_named_assumption_is_unexplained(self):
        # The plan claims to know the leader (its HW from the leader's files, its own log start decides): it named
        # nothing it assumed, so the broker's deletions are a difference nothing explains.
        def claims_leader_known(rp, p):
            p["high_watermark"] = hw("follower_from_leader", "metadata_image_and_leader_dirs")
            p["notes"] = [{"kind": "follower_own_log_start", "text": "...", "evidence": []}]
        ok, r, out = self.single(3, alone_plan(self.replay, 3, claims_leader_known))
        self.assertFalse(ok)
        self.assertEqual(r["node-3/logs-0/lagging-0"][0], "differ-unexplained")
        self.assertIn("NOT EXPLAINED", out)
        # An HW assumption alone does not account for a segment kept by its own retention (unlimited here): only
        # the leader's log start deletes it.
        def hw_assumed_only(rp, p):
            p["high_watermark"] = hw("follower_checkpoint_assumed", "metadata_image")
        ok, r, _ = self.single(3, alone_plan(self.replay, 3, hw_assumed_only))
        self.assertFalse(ok)
        self.assertEqual(r["node-3/logs-0/lagging-1"][0], "differ-unexplained")

    def test_a_deletion_on_an_assumed_leader_is_never_explained(self):
        # Node 1 alone: the leader assumed elected on restart. Its plan matches the broker (6 and 3 are the log
        # starts DeleteRecords left; the segments below them go) ...
        def assumed_leader(rp, p, extra=0):
            p["high_watermark"] = hw("leader_under_min_isr", "restart_election_assumed")
            gone = set(rp["deleted"])
            if extra:
                gone.add(min(set(rp["segments_before"]) - gone))
            p["segments"] = [seg(b, "delete" if b in gone else "retain", "log_start_offset" if b in gone else None,
                                 {"kind": "not_below_log_start"}) for b in rp["segments_before"]]
            p["log_start_offset_after"] = min(set(rp["segments_before"]) - gone)
        ok, r, out = self.single(1, alone_plan(self.replay, 1, assumed_leader))
        self.assertTrue(ok, out)
        self.assertEqual({s for s, _ in r.values()}, {"agree"})
        # ... but one that deletes a segment the broker kept acted on a guess, whatever it names.
        ok, r, out = self.single(1, alone_plan(self.replay, 1, lambda rp, p: assumed_leader(rp, p, extra=1)))
        self.assertFalse(ok)
        status, diffs = r["node-1/logs-0/lagging-0"]
        self.assertEqual(status, "differ-unexplained")
        self.assertEqual(sorted(k for _, k, _ in diffs), ["deletes_kept", "log_start_high"])
        self.assertIn("segment 6: plan says delete, broker kept it", out)

    def test_a_replica_missing_from_the_plan_is_unexplained(self):
        plan = alone_plan(self.replay, 3, follower_without_leader)
        plan["partitions"] = plan["partitions"][:1]
        ok, r, _ = self.single(3, plan)
        self.assertFalse(ok)
        self.assertEqual(r["node-3/logs-0/lagging-1"], ("differ-unexplained",
                                                        [("partition missing from the plan", "missing", [])]))


if __name__ == "__main__":
    unittest.main()
