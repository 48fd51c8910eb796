"""Processes of one cluster (``server/cluster``): Redis nodes, leases, takeovers, rebalancing,
failover, and the work that runs once per cluster."""
