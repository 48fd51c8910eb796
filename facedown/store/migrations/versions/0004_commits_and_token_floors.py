"""What must outlive the process besides the tables: a count of commits, and token rotations.

``store_meta`` holds named counters; ``commits`` counts the SQLite writer's transactions, so
that a database that lost acknowledged commits (a damaged write-ahead log) is recognised at
start-up (store/commits.py).  ``token_floors`` holds, per guest who rotated their session
token, the earliest issue time (ms) still valid: a rotation survives a restart.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    meta = op.create_table(
        "store_meta",
        sa.Column("key", sa.String(), nullable=False),
        sa.Column("value", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("key", name="pk_store_meta"),
    )
    op.bulk_insert(meta, [{"key": "commits", "value": 0}])
    op.create_table(
        "token_floors",
        sa.Column("player_id", sa.String(), nullable=False),
        sa.Column("valid_from", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("player_id", name="pk_token_floors"),
    )


def downgrade() -> None:
    op.drop_table("token_floors")
    op.drop_table("store_meta")
