"""Render the site's pages from reports/templates (Jinja2, autoescaped) and copy reports/static."""

from __future__ import annotations

import math
import shutil
from pathlib import Path
from typing import Any, Callable, Hashable

import pandas as pd
from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

PAGES = ("index.html", "trends.html", "factors.html", "runs.html")


def _number(fmt: str) -> Callable[[Any], str]:
    def format_value(value: Any) -> str:
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return ""
        return format(value, fmt)
    return format_value


def _mbps(value: Any) -> str:
    """Three significant figures, whole numbers from 1000 on (a prediction can run to thousands)."""
    shown = _number(".3g")(value)
    return f"{value:,.0f}" if shown and abs(value) >= 1000 else shown


_MBPS, _RATIO, _MS = _mbps, _number(".2f"), _number(",.0f")
FORMATS: dict[str, Callable[[Any], str]] = {
    "MB/s": _MBPS, "x reference": _RATIO, "p99 ms": _MS, "e2e p99 ms": _MS, "consumed MB/s": _MBPS,
    "p99 at rate ms": _MS, "e2e p99 at rate ms": _MS,  # report.latest.column of the metrics at rate
    **{c: _MBPS for c in ("average MB/s", "min MB/s", "max MB/s", "faster MB/s", "slower MB/s", "predicted MB/s",
                          "measured MB/s")},
    **{c: _MS for c in ("average p99 ms", "min p99 ms", "max p99 ms", "predicted p99 ms", "measured p99 ms")},
    "x fastest row": _RATIO,
    **{c: _number(".1f") for c in ("range x", "model range x", "p99 range x", "study range x", "ratio x")},
    **{c: _RATIO for c in ("model MB/s x best", "model p99 x best", "slope", "slope se")},
}


def table(df: pd.DataFrame, css: str = "") -> Markup:
    """A pandas table as escaped HTML, numbers formatted per column."""
    if df.empty:
        return Markup("")
    formatters: dict[Hashable, Callable[[Any], str]] = {c: FORMATS[c] for c in df.columns if c in FORMATS}
    html = df.to_html(index=False, border=0, classes=f"data {css}".strip(), na_rep="", formatters=formatters,
                      escape=True)
    return Markup(html)


def readable(value: Any, fmt: str = ".3g") -> str:
    """Three significant figures, but whole numbers with separators from 1000 on (no 6.29e+04)."""
    if value is None:
        return ""
    return f"{value:,.0f}" if abs(value) >= 1000 else format(value, fmt)


def plain(value: Any) -> str:
    """A JSON value as a person would write it: none, true, a, b."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (list, tuple)):
        return ", ".join(plain(v) for v in value)
    return str(value)


def _environment(templates: Path) -> Environment:
    env = Environment(loader=FileSystemLoader(templates), autoescape=select_autoescape(["html"]),
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters["table"] = table
    env.filters["svg"] = Markup  # chart SVG is built from escaped parts in report.charts
    env.filters["plain"] = plain
    env.filters["pct"] = lambda v: f"{100 * v:+.1f}%"
    env.filters["num"] = readable
    return env


def render_all(sources: Path, out: Path, context: dict[str, Any]) -> list[Path]:
    env = _environment(sources / "templates")
    written = []
    for page in PAGES:
        path = out / page
        path.write_text(env.get_template(page).render(page=page, **context), encoding="utf-8")
        written.append(path)
    for item in (sources / "static").iterdir():
        if item.is_file():
            shutil.copyfile(item, out / item.name)
    return written
