"""Drop ``queue_leases``: the ranked matchmaker runs under a lease of ``leases`` (0008).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-03

Revision 0006 gave each ranked queue a lease row of its own (queue, holder, expiry).  The
matchmaker now runs as a once-per-cluster job under the general, fenced lease ``once:ranked``
of the ``leases`` table, so the old rows mean nothing: they are dropped with their table.  A
downgrade makes the table again, empty, as 0006 made it (a matchmaker of that revision takes
its leases afresh).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.drop_table("queue_leases")


def downgrade() -> None:
    op.create_table(
        "queue_leases",
        sa.Column("queue", sa.String(), nullable=False),
        sa.Column("holder", sa.String(), nullable=False),
        sa.Column("expires_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("queue", name="pk_queue_leases"),
    )
