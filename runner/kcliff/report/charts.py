"""The report's two charts as inline SVG, written out by hand.

Why by hand: the site has exactly two chart shapes (sorted horizontal bars, a line with min-max
whiskers and change-point markers), it must work offline and with JavaScript off, and a 100-run
history means a few hundred charts per build. Plain SVG strings do that in milliseconds with no
dependency; matplotlib would add tens of MB and seconds per build, and a vendored JS chart library
would need scripts to show anything. Each mark carries a <title>, which browsers show on hover.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape

from kcliff.judge.changepoint import ChangePoint, Series

FONT = 'font-family="system-ui, sans-serif" font-size="12"'


@dataclass(frozen=True)
class Bar:
    label: str
    value: float
    colour: str
    text: str     # printed after the bar
    tooltip: str
    emphasis: bool = False


def _axis(value: float, intervals: int = 5) -> tuple[float, float]:
    """(top, step): a round step (1, 2, 2.5 or 5 x 10^k) so that at most `intervals` steps reach value."""
    if value <= 0:
        return 1.0, 0.25
    raw = value / intervals
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    return step * math.ceil(value / step - 1e-9), step


def _fmt(value: float) -> str:
    return f"{value:.3g}" if abs(value) < 1000 else f"{value:,.0f}"


def bar_chart(bars: list[Bar], unit: str, title: str, width: int = 960) -> str:
    """Horizontal bars in the given order, one row each, value axis from zero."""
    row, top, label_w, text_w = 22, 28, 170, 190
    plot_w = width - label_w - text_w
    height = top + row * len(bars) + 26
    top_value, step = _axis(max((b.value for b in bars), default=1.0))
    ticks = round(top_value / step)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart tier-chart" role="img" width="{width}" '
           f'height="{height}" viewBox="0 0 {width} {height}" {FONT}><title>{escape(title)}</title>']
    for i in range(ticks + 1):
        x = label_w + plot_w * i / ticks
        out.append(f'<line x1="{x:.1f}" y1="{top - 6}" x2="{x:.1f}" y2="{height - 20}" class="grid"/>'
                   f'<text x="{x:.1f}" y="{height - 6}" text-anchor="middle" class="axis">'
                   f'{_fmt(step * i)}{" " + unit if i == ticks else ""}</text>')
    for i, bar in enumerate(bars):
        y = top + i * row
        w = max(plot_w * bar.value / top_value, 1.0)
        stroke = ' stroke="#111" stroke-width="2"' if bar.emphasis else ""
        weight = ' font-weight="bold"' if bar.emphasis else ""
        out.append(
            f'<g class="bar"><title>{escape(bar.tooltip)}</title>'
            f'<text x="{label_w - 8}" y="{y + 15}" text-anchor="end"{weight}>'
            f'{escape(bar.label)}</text>'
            f'<rect x="{label_w}" y="{y + 3}" width="{w:.1f}" height="{row - 6}" fill="{bar.colour}"{stroke}/>'
            f'<text x="{label_w + w + 6:.1f}" y="{y + 15}" class="value">{escape(bar.text)}</text></g>')
    out.append("</svg>")
    return "".join(out)


def trend_chart(series: Series, changes: list[ChangePoint], width: int = 460, height: int = 190) -> str:
    """Run medians over time with min-max whiskers; a dashed line before each change point's run."""
    left, right, top, bottom = 52, 12, 14, 34
    points = series.points
    plot_w, plot_h = width - left - right, height - top - bottom
    y_max, step = _axis(max(p.high for p in points))
    n = len(points)

    def x(i: float) -> float:
        return left + (plot_w * (i + 0.5) / n)

    def y(v: float) -> float:
        return top + plot_h * (1 - v / y_max)

    unit = series.metric.unit
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart trend-chart" role="img" width="{width}" '
           f'height="{height}" viewBox="0 0 {width} {height}" {FONT}>'
           f'<title>{escape(series.scenario)} {series.metric.name} ({unit}), {n} runs</title>']
    for i in range(round(y_max / step) + 1):
        v = step * i
        out.append(f'<line x1="{left}" y1="{y(v):.1f}" x2="{width - right}" y2="{y(v):.1f}" class="grid"/>'
                   f'<text x="{left - 6}" y="{y(v) + 4:.1f}" text-anchor="end" class="axis">{_fmt(v)}</text>')
    out.append(f'<text x="{left}" y="{height - 4}" class="axis">{escape(points[0].date[:10])}</text>'
               f'<text x="{width - right}" y="{height - 4}" text-anchor="end" class="axis">'
               f'{escape(points[-1].date[:10])}</text>'
               f'<text x="{width / 2:.0f}" y="{height - 4}" text-anchor="middle" class="axis">{escape(unit)}</text>')
    for cp in changes:
        cx = x(cp.index - 0.5)
        kind = "regression" if cp.regression else "improvement"
        out.append(f'<g class="change {kind}"><title>{escape(_change_text(cp, unit))}</title>'
                   f'<line x1="{cx:.1f}" y1="{top}" x2="{cx:.1f}" y2="{top + plot_h}"/>'
                   f'<text x="{cx + 3:.1f}" y="{top + 10}">{cp.percent:+.0f}%</text></g>')
    out.append(f'<polyline class="line" points="{" ".join(f"{x(i):.1f},{y(p.median):.1f}" for i, p in enumerate(points))}"/>')
    r = 3 if n <= 60 else 2
    for i, p in enumerate(points):
        tip = f"{p.date} run {p.run_id}: median {_fmt(p.median)} {unit} (min {_fmt(p.low)}, max {_fmt(p.high)}), " \
              f"Kafka {p.kafka_version}, kcliff {p.revision[:12]}"
        out.append(f'<g class="point"><title>{escape(tip)}</title>'
                   f'<line x1="{x(i):.1f}" y1="{y(p.low):.1f}" x2="{x(i):.1f}" y2="{y(p.high):.1f}" class="whisker"/>'
                   f'<circle cx="{x(i):.1f}" cy="{y(p.median):.1f}" r="{r}"/></g>')
    out.append("</svg>")
    return "".join(out)


def _change_text(cp: ChangePoint, unit: str) -> str:
    notes = f" ({'; '.join(cp.notes)})" if cp.notes else ""
    kind = "regression" if cp.regression else "improvement"
    return (f"{kind}: {_fmt(cp.before)} -> {_fmt(cp.after)} {unit} ({cp.percent:+.1f}%) from run {cp.run_id} "
            f"({cp.date}), previous run {cp.previous_run_id}{notes}")
