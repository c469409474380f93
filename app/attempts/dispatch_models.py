"""When each attempt was last handed to the broker, and the request that submitted it.

The Attempt row says what state a job is in; this row says whether the broker was told. A send that
failed (broker down) or a message the broker lost (restarted without persistence) shows up as a
queued attempt whose last send is old, which the sweeper sends again (app/attempts/sweeper.py).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from app.core.db import Base


class AttemptDispatch(Base):
    __tablename__ = "attempt_dispatches"

    attempt_id: Mapped[int] = mapped_column(ForeignKey("attempts.id", ondelete="CASCADE"), primary_key=True)
    # Null: not sent yet, or the last send failed; the sweeper sends it on its next round.
    sent_at: Mapped[datetime | None] = mapped_column(index=True)
    sends: Mapped[int] = mapped_column(default=0)
    # The X-Request-ID of the submitting request, so the worker logs under the same id.
    request_id: Mapped[str | None] = mapped_column(String(64))
