"""Ranked play: the queues, their leases, ranked matches and their seats, ratings.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02

Only new tables: nothing existing changes, so a database of revision 0005 upgrades in place.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "ranked_queue",
        sa.Column("user_id", sa.String(), nullable=False),
        sa.Column("queue", sa.String(), nullable=False),
        sa.Column("joined_at", sa.Float(), nullable=False),
        sa.Column("seen_at", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name="fk_ranked_queue_user_id_users"),
        sa.PrimaryKeyConstraint("user_id", name="pk_ranked_queue"),
    )
    op.create_index("ix_ranked_queue_queue", "ranked_queue", ["queue"])
    op.create_table(
        "queue_leases",
        sa.Column("queue", sa.String(), nullable=False),
        sa.Column("holder", sa.String(), nullable=False),
        sa.Column("expires_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("queue", name="pk_queue_leases"),
    )
    op.create_table(
        "ranked_matches",
        sa.Column("table_id", sa.String(), nullable=False),
        sa.Column("queue", sa.String(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("rated_at", sa.Float(), nullable=True),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.ForeignKeyConstraint(
            ["table_id"], ["tables.id"], name="fk_ranked_matches_table_id_tables"
        ),
        sa.PrimaryKeyConstraint("table_id", name="pk_ranked_matches"),
    )
    op.create_index("ix_ranked_matches_queue", "ranked_matches", ["queue"])
    op.create_table(
        "ranked_seats",
        sa.Column("table_id", sa.String(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.String(), nullable=False),
        sa.Column("waited", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["ranked_matches.table_id"],
            name="fk_ranked_seats_table_id_ranked_matches",
        ),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name="fk_ranked_seats_user_id_users"),
        sa.PrimaryKeyConstraint("table_id", "seat", name="pk_ranked_seats"),
    )
    op.create_index("ix_ranked_seats_user_id", "ranked_seats", ["user_id"])
    op.create_table(
        "ratings",
        sa.Column("user_id", sa.String(), nullable=False),
        sa.Column("queue", sa.String(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("matches", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name="fk_ratings_user_id_users"),
        sa.PrimaryKeyConstraint("user_id", "queue", name="pk_ratings"),
    )
    op.create_index("ix_ratings_queue_score", "ratings", ["queue", "score"])


def downgrade() -> None:
    op.drop_index("ix_ratings_queue_score", table_name="ratings")
    op.drop_table("ratings")
    op.drop_index("ix_ranked_seats_user_id", table_name="ranked_seats")
    op.drop_table("ranked_seats")
    op.drop_index("ix_ranked_matches_queue", table_name="ranked_matches")
    op.drop_table("ranked_matches")
    op.drop_table("queue_leases")
    op.drop_index("ix_ranked_queue_queue", table_name="ranked_queue")
    op.drop_table("ranked_queue")
