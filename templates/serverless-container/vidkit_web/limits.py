"""How much render work one process takes on (README.md, "Load limits"), the same variables and
defaults as the JavaScript templates: RENDER_MAX_WAITING renders may wait behind the running one
(default 8; one more is answered 429 with Retry-After), and a render running longer than
RENDER_TIMEOUT_SECONDS (default 600) is stopped and answered 504."""

import math
import re
from dataclasses import dataclass
from typing import Mapping

DEFAULT_MAX_WAITING = 8
DEFAULT_RENDER_TIMEOUT_SECONDS = 600
# What Retry-After says before this process has seen a render finish.
FIRST_RETRY_AFTER_SECONDS = 30


@dataclass(frozen=True)
class RenderLimits:
    max_waiting: int
    timeout_seconds: int


def _whole_number(env: Mapping[str, str], name: str, fallback: int, minimum: int) -> int:
    value = env.get(name, "")
    if not value:
        return fallback
    if not re.fullmatch(r"[0-9]+", value) or int(value) < minimum:
        raise ValueError(f'{name} must be a whole number of at least {minimum}, got "{value}"')
    return int(value)


def render_limits(env: Mapping[str, str]) -> RenderLimits:
    return RenderLimits(
        max_waiting=_whole_number(env, "RENDER_MAX_WAITING", DEFAULT_MAX_WAITING, 0),
        timeout_seconds=_whole_number(env, "RENDER_TIMEOUT_SECONDS", DEFAULT_RENDER_TIMEOUT_SECONDS, 1),
    )


def retry_after_seconds(last_render_seconds: float | None) -> int:
    """A place frees when the running render ends: about as long as the last one took."""
    return max(1, math.ceil(last_render_seconds if last_render_seconds is not None else FIRST_RETRY_AFTER_SECONDS))


class QueueFull(Exception):
    """Every place in the queue is taken: answered 429 with Retry-After."""

    def __init__(self, retry_after: int, max_waiting: int) -> None:
        super().__init__(f"the render queue is full ({max_waiting} waiting, RENDER_MAX_WAITING); retry after {retry_after} s")
        self.retry_after = retry_after
