"""A table's seed as decimal text: 128 bits of randomness, which BIGINT cannot hold.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-04

Table seeds were 48 bits (``secrets.randbits(48)``) in a BIGINT column: from the cards a seat
sees, a search of every seed finds the one that deals them.  New tables draw 128 bits, which no
integer column of SQLite or PostgreSQL holds, so the column becomes text (``models.SeedText``
reads it back as an int).  Every stored seed is kept, written as its decimal digits.  A
downgrade turns the column back into BIGINT: it fails on a database that holds a seed beyond
64 bits (a table made after the upgrade), which the older code could not read anyway.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | Sequence[str] | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _retype(old: str, new: str, cast: str) -> None:
    """The seed column's type from ``old`` to ``new``, every value cast to ``cast``.

    SQLite changes a type only by copying the whole table (Alembic's batch mode), and dropping
    the old copy fails on the seats' and log's foreign keys; so there the values move through a
    new column of the new type, which then takes the old one's place.  PostgreSQL alters the
    column in place."""
    if op.get_bind().dialect.name != "sqlite":
        op.alter_column(
            "tables",
            "seed",
            existing_type=getattr(sa, old)(),
            type_=getattr(sa, new)(),
            existing_nullable=False,
            postgresql_using=f"seed::{cast}",
        )
        return
    if new == "String":
        op.execute("ALTER TABLE tables ADD COLUMN seed_new VARCHAR NOT NULL DEFAULT '0'")
        op.execute("UPDATE tables SET seed_new = CAST(seed AS TEXT)")
    else:
        op.execute("ALTER TABLE tables ADD COLUMN seed_new BIGINT NOT NULL DEFAULT 0")
        op.execute("UPDATE tables SET seed_new = CAST(seed AS BIGINT)")
    op.execute("ALTER TABLE tables DROP COLUMN seed")
    op.execute("ALTER TABLE tables RENAME COLUMN seed_new TO seed")


def upgrade() -> None:
    _retype("BigInteger", "String", "text")


def downgrade() -> None:
    _retype("String", "BigInteger", "bigint")
