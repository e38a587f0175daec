"""The course's one HTML table. It sits low (it imports only the message catalog, fastrain's bottom) so
that both the hardware report (measure/hardware.py) and the widgets (ui/widgets.py) can use it without an
import circle: widgets imports hardware."""

from __future__ import annotations

import html

from fastrain_lib.core.i18n import plain


def number(value: float, fmt: str = "{:.4g}") -> str:
    """`value` formatted with `fmt`, but never in e+ notation: a student reads "22,510 tokens/s", not
    "2.251e+04" (fmt's "g" switches to it from 10,000 up); the catalog's rule (i18n.plain), so tables,
    plots and messages write a number alike."""
    return plain(fmt, value)


def html_table(headers: list[str], rows: list[tuple], fmt: str = "{:.4g}") -> str:
    """A small HTML table; floats are formatted with `fmt` (number()), everything is escaped."""

    def cell(value):
        text = number(value, fmt) if isinstance(value, float) else str(value)
        return html.escape(text)

    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{cell(v)}</td>" for v in row) + "</tr>" for row in rows)
    return f'<table class="fastrain-table"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def text_table(headers: list[str], rows: list[tuple], fmt: str = "{:.4g}") -> str:
    """The same table as plain text, columns aligned (what a saved notebook shows without HTML)."""

    def cell(value):
        return number(value, fmt) if isinstance(value, float) else str(value)

    lines = [[str(h) for h in headers]] + [[cell(v) for v in row] for row in rows]
    width = max(len(line) for line in lines)
    sizes = [max(len(line[i]) for line in lines if i < len(line)) for i in range(width)]
    text = ["  ".join(value.ljust(sizes[i]) for i, value in enumerate(line)).rstrip() for line in lines]
    if headers:
        text.insert(1, "  ".join("-" * size for size in sizes))
    return "\n".join(text)
