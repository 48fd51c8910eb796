"""The initial schema: tables, seats and the table log.

Revision ID: 0001
Revises:
Create Date: 2025-01-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "tables",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("code", sa.String(), nullable=False),
        sa.Column("preset", sa.String(), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("host_id", sa.String(), nullable=False),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("deadline", sa.Float(), nullable=True),
        sa.Column("deadline_kind", sa.String(), nullable=True),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("updated_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_tables"),
        sa.UniqueConstraint("code", name="uq_tables_code"),
    )
    op.create_index("ix_tables_status", "tables", ["status"])
    op.create_table(
        "seats",
        sa.Column("table_id", sa.String(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("player_id", sa.String(), nullable=True),
        sa.Column("bot_level", sa.String(), nullable=True),
        sa.ForeignKeyConstraint(["table_id"], ["tables.id"], name="fk_seats_table_id_tables"),
        sa.PrimaryKeyConstraint("table_id", "seat", name="pk_seats"),
    )
    op.create_table(
        "table_log",
        sa.Column("table_id", sa.String(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(["table_id"], ["tables.id"], name="fk_table_log_table_id_tables"),
        sa.PrimaryKeyConstraint("table_id", "seq", name="pk_table_log"),
    )


def downgrade() -> None:
    op.drop_table("table_log")
    op.drop_table("seats")
    op.drop_index("ix_tables_status", table_name="tables")
    op.drop_table("tables")
