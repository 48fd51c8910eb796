"""Scoreboards of paper games: names, scoring, the rounds as entered, a revision.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "scoreboards",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("view_key", sa.String(), nullable=False),
        sa.Column("names", sa.JSON(), nullable=False),
        sa.Column("preset", sa.String(), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("placement", sa.JSON(), nullable=True),
        sa.Column("rounds", sa.JSON(), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("updated_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_scoreboards"),
        sa.UniqueConstraint("view_key", name="uq_scoreboards_view_key"),
    )


def downgrade() -> None:
    op.drop_table("scoreboards")
