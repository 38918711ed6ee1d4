"""A rig profile: the shape of the production cluster a config repo runs on, and the caps that make
the resource binding first there bind first on this rig, at production's ratio between them.

    profile:                      # in kcliff.yaml, or `--profile NAME` for a preset
      preset: aws-m5.xlarge-gp3   # or the figures themselves:
      nic_gbit: 1.25              #   each broker's NIC (sustained, each way)
      disk_mb_s: 131              #   each broker's disk write throughput (MB/s, 10^6 bytes)
      cores: 4                    #   each broker's cores
      consumer_groups: 2          # groups reading every record at once (default 1)
      replication_rtt_ms: 2       # round trip between brokers' zones, whole ms (default 0: one zone)
      peak:                       # optional: your own metrics, per broker, at peak
        bytes_in_mb_s: 40         #   kafka.server BytesInPerSec
        cpu: 0.35                 #   share of the broker's cores busy then

Each resource's limit is the produce rate into one broker (its BytesInPerSec) at which it saturates,
after AWS's sizing rule for Kafka ("Best practices for right-sizing your Apache Kafka clusters",
Equation 1): a broker stores and takes in `r` copies of what it leads and sends `r - 1 + groups`.
The CPU's limit is the peak's bytes in over its CPU share when metrics are given, else the cores
times CORE_MB_S, an assumption (the sizing post finds network and storage the common bottlenecks,
so the assumption only has to put CPU above them). On the rig, scaled by the rig's own CPU-bound
capacity, the same limits give the caps: a link each way and a disk per broker. A replication round
trip is no limit: it passes to the rig as it is (backends/replication_rtt.py). No preset declares
one: AWS publishes no figure between its zones beyond "single-digit millisecond" (docs/profiles.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kcliff import yamlio
from kcliff.errors import InputError, Problems

REPLICATION = 3  # the invariant: every record is stored and taken in by three brokers
# produce MB/s into one broker that one core carries when no peak metrics say otherwise (an assumption:
# see the module's docstring; declare `peak:` to replace it with your own)
CORE_MB_S = 30.0
SHAPE_KEYS = ("nic_gbit", "disk_mb_s", "cores")
PROFILE_KEYS = ("preset", *SHAPE_KEYS, "consumer_groups", "replication_rtt_ms", "peak")
MAX_RTT_MS = 1000
PEAK_KEYS = ("bytes_in_mb_s", "cpu")
MIN_RECORDS = 2_000  # the fewest records a run at a profile sends, however tight its caps


@dataclass(frozen=True)
class BrokerShape:
    nic_gbit: float
    disk_mb_s: float
    cores: float
    source: str = "declared in kcliff.yaml"


# AWS's published baselines (sustained, not burst): the instance's baseline network bandwidth, and the
# lesser of its baseline EBS bandwidth and gp3's baseline 125 MiB/s (131 MB/s). An on-premises class for contrast.
PRESETS: dict[str, BrokerShape] = {
    "aws-m5.large-gp3": BrokerShape(0.75, 81.0, 2, "EC2 m5.large: 0.75 Gbit/s network and 650 Mbit/s EBS baseline"),
    "aws-m5.xlarge-gp3": BrokerShape(1.25, 131.0, 4, "EC2 m5.xlarge: 1.25 Gbit/s network, 1150 Mbit/s EBS baseline; "
                                                    "gp3 125 MiB/s"),
    "aws-m5.2xlarge-gp3": BrokerShape(2.5, 131.0, 8, "EC2 m5.2xlarge: 2.5 Gbit/s network, 2300 Mbit/s EBS baseline; "
                                                    "gp3 125 MiB/s"),
    "onprem-10g-nvme": BrokerShape(10.0, 1000.0, 16, "a 10 GbE host with NVMe disks (1 GB/s sustained writes)"),
}
DEFAULT_BYTE_BOUND = "aws-m5.xlarge-gp3"  # the byte-bound rig a check measures on when a repo declares no profile


@dataclass(frozen=True)
class Profile:
    name: str
    shape: BrokerShape
    consumer_groups: int = 1
    peak_in_mb_s: float | None = None
    peak_cpu: float | None = None
    path: str | None = None  # where it was declared
    line: int | None = None
    replication_rtt_ms: int = 0  # between brokers (followers' fetches): brokers in different zones

    def limits(self) -> dict[str, float]:
        """Each resource's limit as produce MB/s into one broker."""
        nic = self.shape.nic_gbit * 1e3 / 8
        cpu = (self.peak_in_mb_s / self.peak_cpu if self.peak_in_mb_s and self.peak_cpu
               else self.shape.cores * CORE_MB_S)
        return {"network": min(nic / REPLICATION, nic / (REPLICATION - 1 + self.consumer_groups)),
                "disk": self.shape.disk_mb_s / REPLICATION, "cpu": cpu}

    def binding(self) -> str:
        """The resource production runs out of first."""
        limits = self.limits()
        return min(limits, key=lambda k: limits[k])

    def caps(self, rig_mb_s: float) -> RigCaps:
        """The caps on a rig whose 3-broker cluster produces `rig_mb_s` flat out when CPU binds: each
        limit scaled by the rig's CPU-bound share per broker over production's."""
        limits = self.limits()
        scale = (rig_mb_s / REPLICATION) / limits["cpu"]
        # on the rig a producer run has no consumer beside it, so a link binds on what a broker takes in
        link_mb_s = limits["network"] * scale * REPLICATION
        return RigCaps(self.name, round(link_mb_s * 8, 2), round(limits["disk"] * scale * REPLICATION, 2),
                       self.binding(), rig_mb_s, self.replication_rtt_ms)

    def describe(self) -> str:
        limits = self.limits()
        return (f"{self.name} ({self.shape.source}): per broker network {limits['network']:.0f}, disk "
                f"{limits['disk']:.0f}, CPU {limits['cpu']:.0f} MB/s of produce in; {self.binding()} binds first")


@dataclass(frozen=True)
class RigCaps:
    """What a profile sets on this rig, and what it was derived from."""

    profile: str
    link_mbit: float
    disk_mb_s: float
    binds: str  # the resource meant to bind first
    rig_cpu_mb_s: float  # the rig's CPU-bound capacity the caps were scaled to (0: caps given by hand)
    replication_rtt_ms: int = 0  # the profile's round trip between brokers, as it is: no scaling

    @classmethod
    def by_hand(cls, link_mbit: float, disk_mb_s: float, replication_rtt_ms: int = 0) -> RigCaps | None:
        """Caps given without a profile (--link-mbit, --disk-mb-s): a rig of its own, named after its caps
        ("link-80mbit-disk-1mbs"), so its results are kept apart from the CPU-bound rig's. None: no caps."""
        capped = _caps_mb_s(link_mbit, disk_mb_s)
        if not capped:
            return None
        parts = ([f"link-{link_mbit:g}mbit"] if link_mbit > 0 else []) + ([f"disk-{disk_mb_s:g}mbs"] if disk_mb_s > 0 else [])
        binds = min(capped, key=lambda resource: capped[resource])  # the tighter cap; a tie is the link's
        return cls("-".join(parts), link_mbit, disk_mb_s, binds, 0.0, replication_rtt_ms)

    def records_lasting(self, seconds: float) -> int:
        """Records of 1 KiB the tighter cap passes in `seconds`: a run's floor on this rig, where the CPU-bound
        rig's 30,000 records would last several times the run's length."""
        cap_mb_s = min(_caps_mb_s(self.link_mbit, self.disk_mb_s).values())
        return max(MIN_RECORDS, int(cap_mb_s * 1e6 * seconds / 1024))


def _caps_mb_s(link_mbit: float, disk_mb_s: float) -> dict[str, float]:
    """Each capped resource's MB/s, the link first (a cap of 0 is none): a profile caps both, by hand either."""
    return {name: mb_s for name, mb_s in (("link", link_mbit / 8), ("disk", disk_mb_s)) if mb_s > 0}


def preset(name: str, path: str | None = None, line: int | None = None) -> Profile:
    if name not in PRESETS:
        raise InputError(f"unknown profile preset {name!r}: expected one of {', '.join(PRESETS)}", path, line)
    return Profile(name, PRESETS[name], path=path, line=line)


def _number(data: dict[str, Any], key: str, where: str, found: Problems, upper: float | None = None) -> float | None:
    if key not in data:
        return None
    value, line = data[key], yamlio.key_line(data, key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0 or (upper and value > upper):
        bound = f" and at most {upper:g}" if upper else ""
        found.add(InputError(f"profile {key}: expected a number above 0{bound}, got {value!r}", where, line))
        return None
    return float(value)


def _rtt(data: dict[str, Any], where: str, found: Problems) -> int:
    value = data.get("replication_rtt_ms", 0)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= MAX_RTT_MS \
            or value != int(value):
        found.add(InputError(f"profile replication_rtt_ms: expected whole milliseconds from 0 to {MAX_RTT_MS} (a "
                             f"round trip between the brokers' zones; toxiproxy delays in whole ms), got {value!r}",
                             where, yamlio.key_line(data, "replication_rtt_ms")))
        return 0
    return int(value)


def read_profile(data: Any, where: str, line: int | None, found: Problems) -> Profile | None:
    """kcliff.yaml's `profile:` (a preset's name, or a mapping); every bad entry goes to `found`."""
    if isinstance(data, str):
        with found.catch():
            return preset(data, where, line)
        return None
    if not isinstance(data, dict):
        found.add(InputError(f"profile: expected a preset's name ({', '.join(PRESETS)}) or a mapping of "
                             f"{', '.join(PROFILE_KEYS)}", where, line))
        return None
    for key in data:
        if key not in PROFILE_KEYS:
            found.add(InputError(f"profile: unknown key {key!r}: expected one of {', '.join(PROFILE_KEYS)}", where,
                                 yamlio.key_line(data, key)))
    base: Profile | None = None
    if "preset" in data:
        with found.catch():
            base = preset(str(data["preset"]), where, yamlio.key_line(data, "preset"))
    figures = {k: _number(data, k, where, found) for k in SHAPE_KEYS}
    groups = _number(data, "consumer_groups", where, found)
    rtt = _rtt(data, where, found)
    peak = data.get("peak") or {}
    if not isinstance(peak, dict):
        found.add(InputError(f"profile peak: expected a mapping of {', '.join(PEAK_KEYS)}", where,
                             yamlio.key_line(data, "peak")))
        peak = {}
    peak_in, peak_cpu = _number(peak, "bytes_in_mb_s", where, found), _number(peak, "cpu", where, found, 1.0)
    if base is None and any(v is None for v in figures.values()) and "preset" not in data:
        missing = [k for k, v in figures.items() if v is None and k not in data]
        if missing:
            found.add(InputError(f"profile: give a preset or all of {', '.join(SHAPE_KEYS)} (missing "
                                 f"{', '.join(missing)})", where, line))
        return None
    if base is None and "preset" in data:
        return None
    shape = base.shape if base else BrokerShape(0, 0, 0)
    shape = BrokerShape(figures["nic_gbit"] or shape.nic_gbit, figures["disk_mb_s"] or shape.disk_mb_s,
                        figures["cores"] or shape.cores,
                        shape.source if base and not any(figures.values()) else "declared in kcliff.yaml")
    return Profile(base.name if base else "declared", shape, int(groups or 1), peak_in, peak_cpu, where, line, rtt)
