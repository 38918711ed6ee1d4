"""The clusters a suite measures on, each with what kcliff changed there, and what mends them: a
broker restart for read-only overrides, a heal after a broker died, a new admin client after either."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from kcliff.backends.admin import Admin
from kcliff.backends.base import Cluster, faultable, restartable
from kcliff.errors import ClusterError
from kcliff.measure.apply import BrokerState, read_until
from kcliff.measure.document import GroupStop
from kcliff.measure.progress import Progress
from kcliff.results.model import Status
from kcliff.scenario.settings import as_kafka_value
from kcliff.scenario.suites import Scenario

HEAL_SYNC_S = 180.0      # for a healed broker to catch up with every partition it replicates

Connect = Callable[[str], Admin]  # an admin client for a bootstrap address (a new one after a restart)


@dataclass(eq=False)
class Site:
    """A cluster the suite measures on, with what kcliff has changed there. A check of a Kafka upgrade
    measures its head on a second site, a cluster of the head's version."""

    cluster: Cluster
    admin: Admin
    state: BrokerState
    connect: Connect
    kafka_version: str | None = None  # None: the run's own version (the home cluster)
    loaded_since: float | None = None  # monotonic time its priming began: how long it has been warming
    overrides: dict[str, object] = field(default_factory=dict)  # the read-only broker settings restarted with
    stale_topics: list[str] = field(default_factory=list)  # not deleted while a broker was down
    topic_configs: dict[str, dict[str, str]] = field(default_factory=dict)  # each topic's, as last set

    @classmethod
    def open(cls, cluster: Cluster, admin: Admin, connect: Connect, kafka_version: str | None = None) -> Site:
        return cls(cluster, admin, BrokerState(admin, admin.broker_ids()), connect, kafka_version)

    def create_topic(self, sc: Scenario, topic: str) -> None:
        """The scenario's topic exactly as applied: partitions, replication factor, topic configs."""
        applied, configs = sc.as_applied()["topic"], topic_configs(sc)
        self.admin.create_topic(topic, applied["partitions"], applied["replication.factor"], configs)
        self.topic_configs[topic] = configs

    def switch_topic(self, sc: Scenario, topic: str) -> None:
        """Make the configs of `topic`, shared by sides of one shape (plan.shared_topics), exactly `sc`'s,
        and read them back: a change Kafka silently refused would measure the wrong thing."""
        wanted, current = topic_configs(sc), self.topic_configs[topic]
        if wanted == current:
            return
        self.admin.alter_topic_configs(topic, {**{k: None for k in current if k not in wanted},
                                               **{k: v for k, v in wanted.items() if current.get(k) != v}})
        done, seen = read_until(lambda: self.admin.topic_overrides(topic), lambda seen: seen == wanted)
        if not done:
            raise ClusterError(f"topic {topic}: expected the configs {wanted}, read back {seen}")
        self.topic_configs[topic] = wanted

    def delete_topic(self, topic: str) -> None:
        if self.cluster.dead_nodes():
            self.stale_topics.append(topic)
            return
        try:
            self.admin.delete_topic(topic)
        except ClusterError:
            pass

    def restart_for(self, sc: Scenario, progress: Progress) -> bool:
        """Restart the brokers with the read-only overrides `sc` needs, unless they run with them already."""
        wanted = sc.restart_overrides()
        if wanted == self.overrides:
            return False
        managed = restartable(self.cluster)
        if managed is None:
            raise GroupStop(Status.SKIPPED, f"needs a broker restart for {sorted(wanted or self.overrides)}; "
                                            f"the {self.cluster.backend} backend cannot restart brokers")
        progress.phase(f"restarting brokers with {wanted or 'default read-only settings'}")
        managed.restart(wanted)
        self.overrides = dict(wanted)
        self._reconnect()
        return True

    def heal(self) -> None:
        """Start dead brokers again, delete the topics they kept, and wait until they are in sync."""
        managed = faultable(self.cluster)
        if managed is None:
            raise ClusterError(f"the {self.cluster.backend} backend cannot start a broker again")
        managed.heal()
        self._reconnect()
        stale, self.stale_topics = self.stale_topics, []
        for topic in stale:
            self.delete_topic(topic)
        # measuring while the healed broker still catches up would measure the catching up
        self.admin.wait_in_sync(HEAL_SYNC_S)

    def restore(self) -> None:
        """Put back the dynamic broker configs found at the start."""
        try:
            self.state.restore()
        except (ClusterError, KeyboardInterrupt):
            pass  # the cluster may already be gone; a local one is torn down anyway

    def _reconnect(self) -> None:
        self.admin = self.connect(self.cluster.admin_bootstrap)
        self.state.admin = self.admin


def topic_configs(sc: Scenario) -> dict[str, str]:
    """The topic configs `sc` sets, as Kafka takes them (its partitions and replication are no configs)."""
    return {k: as_kafka_value(v) for k, v in sc.as_applied()["topic"].items()
            if k not in ("partitions", "replication.factor")}
