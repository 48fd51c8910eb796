"""What an operator watches: Prometheus metrics of one server process (``/metrics``).

Each app has its own registry (two apps in one process, as in the tests, never mix their
figures).  What is counted where it happens: WebSocket connections and frames in
``server/edge/sockets.py``, actions as the table applies them (``server/play/table.py``), relayed
frames as they arrive from another process (``server/edge/relay.py``), the tables by
status when the metrics are read (from the lobby, nothing is kept twice).
"""

from __future__ import annotations

from collections import Counter as Tally
from collections.abc import Callable, Iterable, Iterator

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
# Seconds from an action frame's arrival to its answer (the store's commit is inside): the
# buckets reach down to a fast local commit and up to where a player notices.
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.25, 0.5, 1.0, 2.5)

# Seconds a relayed frame takes from one process of a cluster to another (queued for Redis
# there, handed on here): a fraction of a millisecond on one machine, more across a network.
RELAY_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)

StatusCounts = Callable[[], Iterable[str]]

# No ``*_created`` sample beside every counter: the process start time says as much.
disable_created_metrics()  # type: ignore[no-untyped-call]


class _Tables(Collector):
    """The tables this process holds, by status, read from the lobby at each scrape."""

    def __init__(self) -> None:
        self.statuses: StatusCounts | None = None

    def collect(self) -> Iterator[GaugeMetricFamily]:
        family = GaugeMetricFamily(
            "facedown_tables", "tables held by this process, by status", labels=["status"]
        )
        counts = Tally(self.statuses() if self.statuses is not None else ())
        for status in ("lobby", "playing", "finished", "closed", "broken"):
            family.add_metric([status], counts.get(status, 0))
        yield family


class Metrics:
    """The figures of one server process."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.connections = Gauge("facedown_connections", "open WebSocket connections", registry=r)
        self.frames = Counter("facedown_frames", "WebSocket frames received", registry=r)
        self.refused = Counter(
            "facedown_frames_refused",
            "WebSocket frames refused by a rate limit (the connection's or the address's)",
            registry=r,
        )
        self.errors = Counter(
            "facedown_errors", "error frames sent to clients, by code", ["code"], registry=r
        )
        self.actions = Counter(
            "facedown_actions",
            "actions applied: by a player, automatically (a bot or a stand-in), or by a timer",
            ["by"],
            registry=r,
        )
        # Each kind's series, found once (a lookup under the metric's lock, at every action,
        # otherwise); all three are shown from the start, at 0 until the first.
        self._applied = {by: self.actions.labels(by) for by in ("player", "auto", "timer")}
        self.latency = Histogram(
            "facedown_action_latency_seconds",
            "from an action frame's arrival to its answer",
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.takeovers = Counter(
            "facedown_lease_takeovers",
            "table leases this process took over from another (a cluster: its owner died, "
            "stalled or stopped)",
            registry=r,
        )
        self.handovers = Counter(
            "facedown_tables_handed_over",
            "tables this process handed over to the others of a cluster (it owned more than "
            "its share)",
            registry=r,
        )
        self.relay_hop = Histogram(
            "facedown_relay_hop_seconds",
            "a cluster: from a relayed frame's queueing in the process that publishes it to its "
            "delivery here, to the table's owner (to=owner) or to a client's WebSocket "
            "(to=client); on the two processes' clocks",
            ["to"],
            buckets=RELAY_BUCKETS,
            registry=r,
        )
        self._tables = _Tables()
        r.register(self._tables)

    def watch_tables(self, statuses: StatusCounts) -> None:
        """Where the tables' statuses are read at each scrape (the running lobby)."""
        self._tables.statuses = statuses

    def applied(self, *, auto: bool, timed_out: bool) -> None:
        self._applied["timer" if timed_out else "auto" if auto else "player"].inc()

    def error(self, code: str) -> None:
        # Engine refusals carry their reason after a colon (illegal:not_your_turn): one label
        # per kind of refusal, never one per message, so the label set stays small.
        self.errors.labels(code).inc()

    def render(self) -> bytes:
        """The text exposition format."""
        return generate_latest(self.registry)
