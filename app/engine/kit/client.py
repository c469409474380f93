"""The judge's end of the channel to the agent (see agent.py): send a request, wait for its reply.

Every reply is untrusted data from the candidate's process. It is read with size caps, as frames that
cannot execute (wire.py), and the judge treats whatever it holds as an observation to check.
"""

import contextlib
import select
import time

from .wire import WireClosed, WireError, read_frame, write_frame

# A reply larger than this is not an honest observation of the small probe models.
MAX_REPLY_BYTES = 64 * 1024 * 1024


class CandidateError(Exception):
    """The candidate's code raised while answering; `message` is the agent's description of it."""

    def __init__(self, message):
        super().__init__(message)
        self.message = message


class AgentGone(BaseException):
    """The agent stopped answering (it exited, was killed, or broke the protocol): no more requests.
    A BaseException, so that a probe's `except Exception` around one case never swallows it."""


class AgentTimeout(AgentGone):
    """The agent did not answer in time."""


class AgentClient:
    """Requests to the agent over two pipes (to_agent: write end, from_agent: read end)."""

    def __init__(self, to_agent, from_agent):
        self.to_agent, self.from_agent = to_agent, from_agent
        self.requests = 0

    def call(self, op, timeout=None, **args):
        """The agent's result for `op(**args)`; CandidateError when the candidate's code raised."""
        self.requests += 1
        try:
            write_frame(self.to_agent, {"op": op, "args": args})
        except OSError as exc:
            raise AgentGone(f"the agent is gone ({exc.strerror})") from None
        if timeout is not None:
            deadline = time.monotonic() + timeout
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AgentTimeout(f"no answer within {timeout:g} s")
                ready, _, _ = select.select([self.from_agent], [], [], left)
                if ready:
                    break
        try:
            reply = read_frame(self.from_agent, MAX_REPLY_BYTES)
        except WireClosed:
            raise AgentGone("the agent stopped answering") from None
        except (WireError, OSError) as exc:
            raise AgentGone(f"the agent broke the protocol: {exc}") from None
        if not isinstance(reply, dict) or not isinstance(reply.get("ok"), bool):
            raise AgentGone("the agent broke the protocol: a reply without a status")
        if not reply["ok"]:
            message = reply.get("error")
            raise CandidateError(message[:600] if isinstance(message, str) else "the candidate's code failed")
        return reply.get("result")

    def bye(self):
        """Tell the agent to exit; it may already be gone."""
        with contextlib.suppress(AgentGone):
            self.call("bye", timeout=5)
