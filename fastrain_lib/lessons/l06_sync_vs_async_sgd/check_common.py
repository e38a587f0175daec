"""Helpers lesson 06's checks share: the seed of their generated cases, asking inputs again, and
reading a pair of numbers from an answer."""

from __future__ import annotations

from fastrain_lib.lessons.checking import as_number

SEED = 2806


def _again(cases: list, picks=(-1, 2, 0)) -> list:
    """The cases, then a few of them asked again later and in another order (fresh copies)."""
    return list(cases) + [cases[i] for i in picks]


def _pair(answer) -> tuple[float, float] | None:
    """Two numbers from a tuple/list (or a two-element tensor/array), or None."""
    try:
        if not isinstance(answer, (list, tuple)):
            if getattr(answer, "dtype", None) is None or getattr(answer, "shape", None) is None:
                return None
            answer = answer.reshape(-1).tolist()
        if len(answer) != 2:
            return None
        first, second = as_number(answer[0]), as_number(answer[1])
    except Exception:  # noqa: BLE001
        return None
    return None if first is None or second is None else (first, second)
