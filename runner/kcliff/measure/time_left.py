"""How long a group of interleaved rounds has left, for the progress heartbeat: the mean of the rounds
done so far times the rounds to go, never past the group's time budget."""

from __future__ import annotations

from dataclasses import dataclass


def duration(seconds: float) -> str:
    """'45s', '4m31s', '1h02m'."""
    s = max(0, int(round(seconds)))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


@dataclass
class RoundClock:
    """A group's rounds as they pass. `deadline` is when its budget runs out (time.monotonic)."""

    rounds: int
    deadline: float
    current: int = 0  # the round under way; 0: the warm-ups before the first
    first_began: float | None = None
    current_began: float | None = None

    def start(self, index: int, now: float) -> None:
        self.current, self.current_began = index, now
        if self.first_began is None:
            self.first_began = now

    def left(self, now: float) -> float | None:
        """Seconds left by the rounds so far (None before one has finished), at most the budget's."""
        budget = max(0.0, self.deadline - now)
        if self.first_began is None or self.current_began is None or self.current < 2:
            return None
        per_round = (self.current_began - self.first_began) / (self.current - 1)
        this_round = max(0.0, per_round - (now - self.current_began))
        return min(budget, this_round + per_round * (self.rounds - self.current))

    def describe(self, now: float) -> str:
        """'round 2 of 3, about 1m40s left' or, before a round has finished, the budget's bound."""
        budget = duration(self.deadline - now)
        if self.current == 0:
            return f"warm-ups before {self.rounds} round(s), at most {budget} left in the budget"
        where = f"round {self.current} of {self.rounds}"
        estimate = self.left(now)
        if estimate is None:
            return f"{where}, at most {budget} left in the budget"
        return f"{where}, about {duration(estimate)} left (early stop may end it sooner)"
