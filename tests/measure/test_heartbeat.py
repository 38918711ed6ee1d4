"""The progress heartbeat (measure/heartbeat.py) and the time left it reports (measure/time_left.py),
at short intervals on a stream that is no terminal, as in a CI log or a pipe."""

from __future__ import annotations

import io
import re
import threading
import time

from kcliff.measure.heartbeat import HEARTBEAT_S, Heartbeat
from kcliff.measure.progress import Progress
from kcliff.measure.time_left import RoundClock, duration


def lines(stream: io.StringIO) -> list[str]:
    return stream.getvalue().splitlines()


def test_a_silent_phase_gets_a_line_every_interval_saying_what_and_how_long():
    out = io.StringIO()
    progress = Progress(out)
    with Heartbeat(progress, interval=0.2):
        progress.phase("priming the brokers (45s of unmeasured load)", 45)
        time.sleep(1.1)
    beats = [line for line in lines(out) if "under way" in line]
    assert 3 <= len(beats) <= 6, lines(out)
    assert re.fullmatch(r"\[00:0\d\] under way: priming the brokers \(45s of unmeasured load\), about 4[45]s left",
                        beats[0]), beats


def test_the_beats_are_spaced_by_the_interval_and_stop_with_the_block():
    out = io.StringIO()
    progress = Progress(out)
    stamps: list[float] = []
    real_write = progress._write

    def timed(text: str, live: bool = False) -> None:
        real_write(text, live)
        stamps.append(time.monotonic())
    progress._write = timed  # type: ignore[method-assign]
    beat = Heartbeat(progress, interval=0.2)
    with beat:
        time.sleep(1.2)
    said = out.getvalue()
    gaps = [b - a for a, b in zip(stamps, stamps[1:])]
    assert gaps and all(0.15 <= g <= 0.45 for g in gaps), gaps  # the interval, plus at most a tick
    assert not beat._thread.is_alive() and beat._thread.daemon  # joined: never keeps a process alive
    time.sleep(0.5)
    assert out.getvalue() == said  # nothing after the block


def test_any_line_of_the_commands_own_resets_it():
    out = io.StringIO()
    progress = Progress(out)
    with Heartbeat(progress, interval=0.3):
        for n in range(8):
            progress.note(f"step {n}")
            time.sleep(0.1)
    assert not any("under way" in line for line in lines(out)), lines(out)


def test_a_live_line_off_a_terminal_is_no_line_so_the_run_is_named_in_a_beat():
    out = io.StringIO()
    progress = Progress(out)
    clock = RoundClock(rounds=3, deadline=time.monotonic() + 600)
    with Heartbeat(progress, interval=0.2):
        progress.rounds(clock)
        clock.start(1, time.monotonic())
        progress.run_started("consume round 1/3", "flush-1", "consume")
        time.sleep(0.5)
    beat = next(line for line in lines(out) if "under way" in line)
    assert re.search(r"under way: flush-1, consume round 1/3, round 1 of 3, at most (9m5\ds|10m00s) left in the "
                     r"budget$", beat), beat


def test_quiet_prints_no_beat():
    out = io.StringIO()
    with Heartbeat(Progress(out, quiet=True), interval=0.1):
        time.sleep(0.4)
    assert out.getvalue() == ""


def test_the_default_interval_keeps_every_gap_under_15_seconds():
    assert HEARTBEAT_S + min(1.0, HEARTBEAT_S / 4) < 15


def test_time_left_is_the_mean_round_times_the_rounds_to_go_within_the_budget():
    clock = RoundClock(rounds=5, deadline=1000.0)
    assert clock.describe(0.0) == "warm-ups before 5 round(s), at most 16m40s left in the budget"
    clock.start(1, 100.0)
    assert clock.left(105.0) is None and clock.describe(105.0) == "round 1 of 5, at most 14m55s left in the budget"
    clock.start(2, 110.0)
    clock.start(3, 120.0)
    assert clock.left(125.0) == 25.0  # 5 s of round 3 and two 10 s rounds to go
    assert clock.describe(125.0) == "round 3 of 5, about 25s left (early stop may end it sooner)"
    assert RoundClock(5, 130.0, 3, 100.0, 120.0).left(125.0) == 5.0  # never past the budget
    assert duration(271) == "4m31s" and duration(3725) == "1h02m" and duration(-3) == "0s"


def test_the_heartbeat_thread_is_gone_after_an_exception_in_the_block():
    before = threading.active_count()
    try:
        with Heartbeat(Progress(io.StringIO()), interval=0.1):
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        pass
    assert threading.active_count() == before
