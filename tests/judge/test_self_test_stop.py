"""The self-test's early stop (canary.canary_settled, stopping.settled): the reference's and canaries'
rounds end once no run still to come could change a canary's verdict. Checked against the verdict
rule itself, canary.canary_verdict, on every way the remaining runs could fall."""

from __future__ import annotations

import itertools
import random

import pytest
from kcliff.judge.canary import canary_decisive, canary_settled, canary_verdict, decisive_factor, median_range
from kcliff.judge.stopping import settled
from kcliff.results.model import REFERENCE_ID, CliffSpec, Entry, ReadRun, Run, StopKind

FLUSH = CliffSpec(stands_for="an fsync per message", metric="throughput", max_ratio=0.65)
FETCH = CliffSpec(stands_for="one-byte fetches", metric="consumed", max_ratio=0.5)


def producing(sid: str, rates: list[float], cliff: CliffSpec | None = None) -> Entry:
    entry = Entry(id=sid, cliff=cliff, runs=[Run(records=1000, mb_per_sec=r, p99_ms=100.0) for r in rates])
    entry.resummarise()
    return entry


def test_median_range_spans_every_way_the_runs_to_come_can_fall():
    assert median_range([5.0, 7.0], 1) == (5.0, 7.0)  # the median of three lies between two known runs
    assert median_range([5.0], 1) == (2.5, float("inf"))
    assert median_range([5.0, 7.0, 6.0], 0) == (6.0, 6.0)


def test_a_canary_far_below_its_ratio_is_settled_after_two_of_three_rounds():
    """The figures of a default check here: flush-1 at 6.49 and 6.71 MB/s beside 14.49 and 17.16."""
    reference, flush = producing(REFERENCE_ID, [14.49, 17.16]), producing("flush-1", [6.49, 6.71], FLUSH)
    assert canary_settled(flush, reference, 1, 1)
    assert not canary_settled(flush, producing(REFERENCE_ID, [14.49]), 1, 2)  # one round proves nothing


def test_a_canary_near_its_ratio_is_not_settled_until_its_last_run():
    reference, close = producing(REFERENCE_ID, [14.0, 17.0]), producing("flush-1", [9.0, 10.0], FLUSH)
    assert not canary_settled(close, reference, 1, 1)  # 10 / 14 is above 0.65, 9 / 17 below
    assert canary_settled(close, producing(REFERENCE_ID, [14.0, 17.0, 15.0]), 0, 0)


def test_a_canary_that_cannot_show_its_cliff_any_more_is_settled_too():
    assert canary_settled(producing("flush-1", [12.0, 13.0], FLUSH), producing(REFERENCE_ID, [14.0, 15.0]), 1, 1)


def test_a_stopped_run_keeps_a_side_open_until_it_has_no_runs_left():
    stopped = producing("flush-1", [4.0, 5.0], FLUSH)
    stopped.runs[0] = Run(records=100, mb_per_sec=4.0, stopped_early=True, stop_kind=StopKind.CLIFF)
    reference = producing(REFERENCE_ID, [14.0, 17.0])
    assert not canary_settled(stopped, reference, 1, 1)  # a finished run would drop the stopped one
    assert canary_settled(stopped, reference, 0, 1)  # decided on its cliff: it runs no more


@pytest.mark.parametrize("seed", range(3))
def test_settled_means_the_verdict_after_every_round_is_the_one_seen_now(seed):
    """Seeded draws around the ratio: whenever the rule says settled after k of n rounds, every
    completion of the rounds left (from far below to far above any rate seen) gives canary_verdict
    the same answer."""
    rng = random.Random(seed)
    settled_seen = 0
    for _ in range(400):
        n = rng.choice((3, 4, 5))
        k = rng.randrange(2, n)
        ref_rates = [rng.uniform(10, 20) for _ in range(n)]
        canary_rates = [r * rng.uniform(0.4, 0.9) for r in ref_rates]
        reference, canary = producing(REFERENCE_ID, ref_rates[:k]), producing("flush-1", canary_rates[:k], FLUSH)
        if not canary_settled(canary, reference, n - k, n - k):
            continue
        settled_seen += 1
        answers = {canary_verdict(producing("flush-1", canary_rates[:k] + [fill_canary] * (n - k), FLUSH),
                                        producing(REFERENCE_ID, ref_rates[:k] + [fill_ref] * (n - k))).shows_cliff
                   for fill_ref, fill_canary in itertools.product((0.1, 15.0, 1000.0), repeat=2)}
        assert len(answers) == 1, (ref_rates[:k], canary_rates[:k])
    assert settled_seen > 50  # the draws do exercise the settled case


def test_the_group_stops_only_when_every_canary_is_settled():
    reference = producing(REFERENCE_ID, [14.49, 17.16])
    flush, near = producing("flush-1", [6.49, 6.71], FLUSH), producing("inflight-1", [9.0, 12.0], FLUSH)
    done = settled(3)
    assert done([reference, flush])
    assert not done([reference, flush, near])
    assert not done([flush])  # no reference, nothing to judge by


def test_a_read_side_canary_is_judged_on_its_reads_and_counts_none_left_once_its_reads_were_capped():
    reference = producing(REFERENCE_ID, [14.0, 15.0])
    reference.read_runs = [ReadRun(workload="consume", records=10**5, consumed_mb_per_sec=c) for c in (150.0, 160.0)]
    fetch = producing("consumer-fetch-1", [14.0, 15.0], FETCH)
    fetch.read_runs = [ReadRun(workload="consume", records=10**4, consumed_mb_per_sec=2.0, stopped_early=True)
                       for _ in range(2)]
    assert settled(3)([reference, fetch])  # capped twice: its reads are over; 2 / 150 whatever the reference does
    fetch.read_runs = fetch.read_runs[:1]
    assert not settled(3)([reference, fetch])  # one capped read: a finished one may still come


def test_a_canary_at_a_third_of_its_bound_shows_its_cliff_after_one_round():
    # batching-off at 0.08x of a 0.5 bound: no run left could triple it; fetch-1 at 0.29x of 0.5 measures on
    batching = CliffSpec(stands_for="one record per request", metric="throughput", max_ratio=0.5)
    reference = producing(REFERENCE_ID, [14.0])
    assert canary_decisive(producing("batching-off", [1.1], batching), reference, 2)
    assert not canary_settled(producing("batching-off", [1.1], batching), reference, 2, 2)
    assert not canary_decisive(producing("batching-off", [4.1], batching), reference, 2)
    # decided on its cliff by a stopped warm-up, as a check's self-test leaves batching-off and flush-1
    on_cliff = producing("batching-off", [], batching)
    on_cliff.runs = [Run(records=100, mb_per_sec=1.1, stopped_early=True, complete=False, stop_kind=StopKind.CLIFF)]
    assert canary_decisive(on_cliff, reference, 0) and not canary_decisive(on_cliff, reference, 2)
    assert settled(3)([reference, on_cliff])
    done = settled(3)
    assert done([reference, producing("batching-off", [1.1], batching)])
    assert not done([reference, producing("batching-off", [1.1], batching), producing("flush-1", [4.1], FLUSH)])


def test_where_bytes_bind_a_canary_at_four_fifths_of_its_bound_shows_its_cliff_after_one_round():
    # flush-1 at aws-m5.xlarge-gp3: 0.39x of its 0.65 in one run; batching-off up to 0.56x of its 0.75;
    # runs within a check 1-7% apart
    flush = CliffSpec(stands_for="fsync per record", metric="throughput", max_ratio=0.65)
    batching = CliffSpec(stands_for="one record per request", metric="throughput", max_ratio=0.75)
    reference = producing(REFERENCE_ID, [2.06])
    at_profile = producing("flush-1", [0.80], flush)
    assert canary_decisive(at_profile, reference, 2, decisive_factor(bytes_capped=True))
    assert not canary_decisive(at_profile, reference, 2, decisive_factor(bytes_capped=False))
    assert settled(3, bytes_capped=True)([reference, at_profile]) and not settled(3)([reference, at_profile])
    assert settled(3, bytes_capped=True)([reference, producing("batching-off", [1.15], batching)])  # 0.56x
    near = producing("flush-1", [1.13], flush)  # 0.55x: a run left a fifth higher would hide it
    assert not settled(3, bytes_capped=True)([reference, near])


def through_a_fault(sid: str, outages: list[float], cliff: CliffSpec | None = None) -> Entry:
    entry = Entry(id=sid, cliff=cliff, read_runs=[ReadRun(workload="failover", records=30000, fo_unavailable_s=s)
                                                  for s in outages])
    entry.resummarise()
    return entry


def test_the_availability_canary_shows_its_cliff_after_one_round_on_any_rig():
    # broker-session-30s: 30.5-35.4 s beside the reference's 9.2-11.6 s, 0.29-0.35x of its 0.5 bound; at the
    # throughput canaries' factor of 3 it could never stop before its last run
    session = CliffSpec(stands_for="a dead broker fenced after 30 s", metric="unavailable", max_ratio=0.5)
    reference = through_a_fault(REFERENCE_ID, [11.56])
    assert settled(3)([reference, through_a_fault("broker-session-30s", [33.0], session)])
    assert not settled(3)([reference, through_a_fault("broker-session-30s", [24.0], session)])  # 0.48x: measure on
    assert decisive_factor(False) == 3.0  # the throughput canaries keep theirs


def losing(sid: str, lost: list[int | None], cliff: CliffSpec | None = None) -> Entry:
    entry = Entry(id=sid, cliff=cliff, read_runs=[ReadRun(workload="failover", records=30000, fo_lost=n,
                                                          fo_verified=n is not None) for n in lost])
    entry.resummarise()
    return entry


def test_the_durability_canary_is_a_count_one_lost_record_shows_it_and_decides_it_at_once():
    # unclean-election: 10,141 lost in a check's self-test (docs/failover.md); a count, no ratio, no bound
    unclean = CliffSpec(stands_for="a follower behind leads without what it missed", metric="lost")
    reference = through_a_fault(REFERENCE_ID, [10.3])
    shown = canary_verdict(losing("unclean-election", [1], unclean), reference)
    assert (shown.shows_cliff, shown.ratio, shown.canary_median) == (True, None, 1) and shown.seen
    assert "lost 1 acknowledged" in shown.reason
    assert settled(3)([reference, losing("unclean-election", [10141], unclean)])
    # none lost yet: not shown, and the runs left may still lose some
    nothing = losing("unclean-election", [0], unclean)
    assert canary_verdict(nothing, reference).shows_cliff is False and not settled(3)([reference, nothing])
    # a log never read back tells nothing
    assert canary_verdict(losing("unclean-election", [None], unclean), reference).shows_cliff is None
