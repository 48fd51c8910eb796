"""Turn e-mails to confirmed addresses only, in bounded numbers: ``mail_accounts`` and
``mail_counts``.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-04

``mail_accounts`` holds, per account, the language of its mails, the address its owner
confirmed and the confirmation under way (the address a link was sent for, the SHA-256 of the
link's token, when it expires).  ``mail_counts`` counts the mail sent per key (an account, an
address's digest) and hour, for the hourly caps.  An address kept before this revision has no
confirmation: it gets no mail until its owner confirms it.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | Sequence[str] | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "mail_accounts",
        sa.Column("user_id", sa.String(), nullable=False),
        sa.Column("language", sa.String(), nullable=False),
        sa.Column("verified", sa.String(), nullable=True),
        sa.Column("pending", sa.String(), nullable=True),
        sa.Column("token_hash", sa.String(), nullable=True),
        sa.Column("token_expires", sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name="fk_mail_accounts_user_id_users"),
        sa.PrimaryKeyConstraint("user_id", name="pk_mail_accounts"),
        sa.UniqueConstraint("token_hash", name="uq_mail_accounts_token_hash"),
    )
    op.create_table(
        "mail_counts",
        sa.Column("key", sa.String(), nullable=False),
        sa.Column("hour", sa.Integer(), nullable=False),
        sa.Column("sent", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("key", "hour", name="pk_mail_counts"),
    )


def downgrade() -> None:
    op.drop_table("mail_counts")
    op.drop_table("mail_accounts")
