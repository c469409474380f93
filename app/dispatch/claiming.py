"""What every claimed job row shares: the claim token and the conditional UPDATE that decides a race.

Each domain claims its own rows (app/attempts/claims.py, app/scenarios/task_claims.py) with one
conditional UPDATE per change, so two workers (threads, processes or machines) racing for a row can
never both win: the database decides.
"""

from __future__ import annotations

import os
import socket
import uuid
from typing import Any, cast

from sqlalchemy import CursorResult, Update
from sqlalchemy.orm import Session


def new_claim_token(prefix: str = "worker") -> str:
    """A unique worker id for one claim: who runs the job (host, pid) plus a nonce."""
    return f"{prefix}:{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def changed_rows(session: Session, statement: Update) -> int:
    """Run an UPDATE and return how many rows it changed."""
    # The rows are changed in SQL only; nothing in the session needs to follow.
    result = session.execute(statement.execution_options(synchronize_session=False))
    return cast(CursorResult[Any], result).rowcount
