"""Account names that look alike: ``users.name_skeleton``, with a unique index.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-04

The skeleton (``facedown/names.py``, after Unicode's UTS #39) is what a name looks like:
a new account whose name has the skeleton of an existing one is refused.  The column is filled in
for the accounts there are, oldest first; an account whose name looks like an older account's
keeps its name and gets NULL (a unique index holds any number of NULLs), so that the upgrade
never fails and never renames anyone, and no new account can look like either.  A unique index
rather than a constraint: SQLite adds one without copying the table (which the foreign keys of
``user_players`` and ``sessions`` would refuse).  A downgrade drops both.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from facedown.names import name_skeleton

revision: str = "0011"
down_revision: str | Sequence[str] | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_users = sa.table(
    "users",
    sa.column("id", sa.String()),
    sa.column("name", sa.String()),
    sa.column("created_at", sa.Float()),
    sa.column("name_skeleton", sa.String()),
)


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("name_skeleton", sa.String(), nullable=True))
    connection = op.get_bind()
    rows = connection.execute(
        sa.select(_users.c.id, _users.c.name).order_by(_users.c.created_at, _users.c.id)
    ).all()
    seen: set[str] = set()
    for user_id, name in rows:
        skeleton = name_skeleton(name)
        if skeleton in seen:
            continue  # looks like an older account's name: NULL
        seen.add(skeleton)
        connection.execute(
            sa.update(_users).where(_users.c.id == user_id).values(name_skeleton=skeleton)
        )
    op.create_index("ix_users_name_skeleton", "users", ["name_skeleton"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_users_name_skeleton", table_name="users")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("name_skeleton")
