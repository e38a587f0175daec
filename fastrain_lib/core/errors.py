"""Common PyTorch errors, explained in Bengali with the fix.

    from fastrain_lib.core import errors
    errors.classify(exc)        # "device", "dtype", "shape", "oom", "no_gpu" or "other"
    print(errors.explain(exc))  # what went wrong and how to fix it (FASTRAIN_LANG=en: English)

    with errors.explained():    # in a notebook: show the explanation, keep the notebook running
        model(x_on_another_device)

PyTorch's messages are precise but terse ("mat1 and mat2 shapes cannot be multiplied
(64x784 and 128x10)"). We recognise them by their text, since PyTorch raises a plain
RuntimeError for most of them; only out-of-memory has its own class
(torch.OutOfMemoryError, a RuntimeError subclass). The patterns below are the messages
PyTorch 2.x prints; tests/test_errors.py triggers each error for real on a CPU.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

import torch

from fastrain_lib.core.i18n import t

CATEGORIES = ("device", "dtype", "shape", "oom", "no_gpu", "other")

# Message fragments, lower-cased. Order matters: the first category that matches wins.
PATTERNS: dict[str, tuple[str, ...]] = {
    "oom": ("out of memory",),
    "no_gpu": ("found no nvidia driver", "torch not compiled with cuda", "no cuda gpus are available",
               "cuda driver initialization failed"),
    "device": (
        "expected all tensors to be on the same device",  # CUDA + CPU in one operation
        "is not on the expected device",  # the same check, e.g. a CPU tensor with a meta tensor
        "expected object of device type",  # older PyTorch
        "should be on the same device",
    ),
    "dtype": (
        "must have the same dtype",
        "to have the same dtype",
        "expected scalar type",
        "but found double", "but found float", "but found half", "but found bfloat16",
        "expected target dtype",
        "found dtype",
        "result type float can't be cast",
    ),
    "shape": (
        "shapes cannot be multiplied",
        "size mismatch",
        "must match the size of tensor",
        "is invalid for input of size",
        "to match target batch_size",
        "expected input batch_size",
        "dimension out of range",
        "expected 2d or 3d input", "expected 3d (unbatched) or 4d (batched) input",
        "doesn't match the broadcast shape",
    ),
}

DEVICE_NAMES = re.compile(r"\b(cuda(?::\d+)?|cpu|mps|meta|xpu)\b")


@dataclass(repr=False)
class Explanation:
    """A classified error: its category, the Bengali (or English) text, the original line."""

    category: str
    text: str
    error: str  # the original error in one line: "RuntimeError: mat1 and mat2 ..."

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:  # what a terminal (IPython console) shows
        return f"{self.text}\n{t('errors.original')}: {self.error}"

    def _repr_html_(self) -> str:
        return (f'<div class="fastrain-error" style="border-left:4px solid #b00020;padding:0.4em 0.8em">'
                f"<b>{html.escape(self.text)}</b><br><code>{html.escape(self.error)}</code></div>")


CATEGORY_KEYS = {"device": "errors.device", "dtype": "errors.dtype", "shape": "errors.shape", "oom": "errors.oom",
                 "no_gpu": "errors.no_gpu", "other": "errors.other"}


def one_line(exc: BaseException) -> str:
    """'TypeName: first line of the message' (long messages cut at 300 characters)."""
    message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {message[:300]}" if message else type(exc).__name__


def _input_vs_weight(text: str) -> str | None:
    """Convolutions say 'Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor)
    should be the same': a device problem when only one side is a cuda type, else a dtype one."""
    found = re.search(r"input type \((\S+)\) and weight type \((\S+)\)", text)
    if not found:
        return None
    a, b = found.groups()
    return "device" if (".cuda." in a) != (".cuda." in b) else "dtype"


def classify(exc: BaseException) -> str:
    """The kind of error: 'device', 'dtype', 'shape', 'oom', 'no_gpu' or 'other'."""
    if isinstance(exc, torch.OutOfMemoryError):
        return "oom"
    text = str(exc).lower()
    conv = _input_vs_weight(text)
    if conv:
        return conv
    for category, fragments in PATTERNS.items():
        if any(fragment in text for fragment in fragments):
            return category
    return "other"


def _devices(text: str) -> str:
    """The device names a message mentions, in order, without repeats: 'cuda:0, cpu'."""
    seen = []
    for name in DEVICE_NAMES.findall(text):
        if name not in seen:
            seen.append(name)
    return ", ".join(seen) or "?"


def explanation(exc: BaseException, lang: str | None = None) -> Explanation:
    """The structured explanation of `exc` (category, text, original line)."""
    category = classify(exc)
    line = one_line(exc)
    values = {"kind": type(exc).__name__, "devices": _devices(str(exc)), "message": line}
    text = t(CATEGORY_KEYS[category], lang, **values)
    return Explanation(category, text, line)


def explain(exc: BaseException) -> str:
    """What went wrong and how to fix it, in the course language, followed by the original error.

    The experiment panels (widgets.ExperimentPanel) call this for every error they show."""
    found = explanation(exc)
    return f"{found.text}\n{t('errors.original')}: {found.error}"


class explained:
    """A context manager that explains an error instead of stopping the notebook.

        with errors.explained() as caught:
            model(x)                       # raises a device-mismatch RuntimeError
        caught.category                    # "device"

    The error is shown (HTML in Jupyter, text elsewhere) and swallowed, so the next cells
    still run. Only ordinary exceptions are caught: KeyboardInterrupt still stops the cell.
    `expect="device"` raises AssertionError if no error, or another kind, happened — handy
    in a lesson cell whose point is to show one particular error."""

    def __init__(self, show: bool = True, expect: str | None = None):
        if expect is not None and expect not in CATEGORIES:
            raise ValueError(t("errors.bad_category", value=expect, allowed=", ".join(CATEGORIES)))
        self.show = show
        self.expect = expect
        self.exception: BaseException | None = None
        self.result: Explanation | None = None

    @property
    def category(self) -> str | None:
        return self.result.category if self.result else None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        if exc is None or not isinstance(exc, Exception):
            if self.expect is not None and exc is None:
                raise AssertionError(t("errors.expected_error", category=self.expect))
            return False  # nothing happened, or Ctrl-C: let it through
        self.exception = exc
        self.result = explanation(exc)
        if self.show:
            _display(self.result)
        # A different error than the lesson meant is not hidden: its traceback shows too.
        return self.expect is None or self.result.category == self.expect


def _display(found: Explanation) -> None:
    try:
        from IPython import get_ipython
        from IPython.display import display

        if get_ipython() is not None:
            display(found)
            return
    except ImportError:
        pass
    print(found.text)
    print(f"{t('errors.original')}: {found.error}")
