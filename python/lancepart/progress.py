"""Progress bars for long admin operations. ``progress`` arguments take ``None`` (a bar when
stderr is a terminal or notebook, tqdm's default), ``True`` (always) or ``False`` (never)."""

from __future__ import annotations

import threading
from typing import Callable, Iterable, TypeVar

from tqdm.auto import tqdm

T = TypeVar("T")

_POLL_SECONDS = 0.2


def bar(description: str, total: int | None, progress: bool | None, unit: str) -> tqdm:
    return tqdm(total=total, desc=description, unit=unit, disable=None if progress is None else not progress)


def iterate(items: Iterable[T], description: str, total: int, progress: bool | None, unit: str) -> Iterable[T]:
    """``items`` with a progress bar that advances as each is consumed."""
    with bar(description, total, progress, unit) as b:
        for item in items:
            yield item
            b.update(1)


def run_polled(call: Callable[[], T], poll: Callable[[], tuple[int, int] | None], description: str,
               progress: bool | None, unit: str) -> T:
    """Runs ``call()`` on a worker thread and, while it runs and once after, draws the (done, total)
    that ``poll()`` reports (None: nothing counted); ``call``'s exception is re-raised."""
    outcome: dict[str, object] = {}

    def work() -> None:
        try:
            outcome["value"] = call()
        except BaseException as e:  # re-raised on the caller's thread
            outcome["error"] = e

    worker = threading.Thread(target=work, name=f"lancepart {description}", daemon=True)
    with bar(description, None, progress, unit) as b:
        worker.start()
        running = True
        while running:
            worker.join(_POLL_SECONDS)
            running = worker.is_alive()  # a last poll after the end shows the final count
            counted = None if b.disable else poll()
            if counted and counted[1]:
                b.total = counted[1]
                b.update(counted[0] - b.n)
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["value"]  # type: ignore[return-value]
