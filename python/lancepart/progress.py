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


def run_jvm(call: Callable[[object], T], jvm, description: str, progress: bool | None, unit: str) -> T:
    """Runs ``call(counter)`` with a new JVM ``lancepart.maintenance.Progress`` counter on a worker
    thread and draws the counter's progress until the call returns; its exception is re-raised."""
    counter = jvm.lancepart.maintenance.Progress()
    outcome: dict[str, object] = {}

    def work() -> None:
        try:
            outcome["value"] = call(counter)
        except BaseException as e:  # re-raised on the caller's thread
            outcome["error"] = e

    worker = threading.Thread(target=work, name=f"lancepart {description}", daemon=True)
    with bar(description, None, progress, unit) as b:
        worker.start()
        while worker.is_alive():
            worker.join(_POLL_SECONDS)
            if not b.disable:
                total, done = counter.total(), counter.done()
                if total:
                    b.total = total
                    b.update(done - b.n)
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["value"]  # type: ignore[return-value]
