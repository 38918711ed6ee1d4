"""Field types of the stored documents whose values must be names kcliff knows: a read run's workload
and a canary's metric, each refused as a Literal field would refuse it (pydantic's own wording)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator
from pydantic_core import PydanticCustomError

from kcliff.results.metrics import METRICS, READ_WORKLOADS, Workload


def _read_side(value: Any) -> Any:
    """A read run's workload is one of the read side's (said as a Literal field would say it)."""
    if value not in READ_WORKLOADS:
        raise PydanticCustomError("literal_error", "Input should be {expected}",
                                  {"expected": " or ".join(repr(w.value) for w in READ_WORKLOADS)})
    return value


ReadWorkload = Annotated[Workload, BeforeValidator(_read_side)]


def _metric_name(value: Any) -> Any:
    """A cliff's metric is one of METRICS (said as a Literal field would say it)."""
    if value not in METRICS:
        raise PydanticCustomError("literal_error", "Input should be {expected}",
                                  {"expected": " or ".join(repr(name) for name in METRICS)})
    return value


MetricName = Annotated[str, BeforeValidator(_metric_name)]
