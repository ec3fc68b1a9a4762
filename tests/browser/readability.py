"""What a person reads on a rendered figure, measured in the browser: overlapping, covered and cut texts.

:func:`figure_problems` runs :data:`PROBLEMS_JS` in the page. For every visible Plotly figure it takes the
bounding boxes (``getBoundingClientRect``) of its texts (the title, axis titles, legend entries and title,
annotations, colour-bar titles, the captions of its points: a tree's node names) and reports

- two texts of one figure that overlap (by more than :data:`SLACK` pixels each way),
- a text the figure's mode bar covers (the mode bar is measured where Plotly puts it, shown or not),
- a text cut by the figure's edge (not wholly inside the figure's SVG),
- the tick labels of one axis that overlap each other (a crowded axis).

Each problem is one readable line naming the figure (its id) and the texts. :func:`page_problems` adds the
rest of the page: a text box or a dropdown whose value is cut (:data:`CONTROLS_JS`), and a cytoscape drawing
whose captions overlap (:data:`CANVAS_JS`), and a figure text with less contrast than WCAG 2.1 AA asks
(:data:`CONTRAST_JS`).

Two measures of a drawing on a projector (issue 46): :func:`filled`, the share of its figure's width its marks
span, and :func:`hovers_outside`, the hover boxes of a figure's leftmost and rightmost points that Plotly draws
past the figure's edge.
"""

from __future__ import annotations

__all__ = [
    "PROBLEMS_JS",
    "CONTROLS_JS",
    "CANVAS_JS",
    "CONTRAST_JS",
    "SLACK",
    "figure_problems",
    "page_problems",
    "filled",
    "hovers_outside",
    "viewport",
]

SLACK = 1  # pixels: boxes that only touch do not overlap

PROBLEMS_JS = """
const slack = arguments[0];
const TEXTS = [['title', '.g-gtitle text'], ['axis title', '.g-xtitle text, .g-x2title text, .g-ytitle text, '
               + '.g-y2title text, .g-x3title text, .g-y3title text'], ['legend', '.legend .legendtext'],
               ['legend title', '.legend .legendtitletext'], ['annotation', '.annotation-text-g text'],
               ['colour bar title', '.colorbar .cbtitle text'], ['caption', '.textpoint text']];
const visible = el => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
const box = el => { const r = el.getBoundingClientRect(); return {l: r.left, r: r.right, t: r.top, b: r.bottom}; };
const overlap = (a, b) => Math.min(a.r, b.r) - Math.max(a.l, b.l) > slack
                          && Math.min(a.b, b.b) - Math.max(a.t, b.t) > slack;
const inside = (a, o) => a.l >= o.l - slack && a.r <= o.r + slack && a.t >= o.t - slack && a.b <= o.b + slack;
const problems = [];
for (const plot of document.querySelectorAll('.js-plotly-plot')) {
  if (!visible(plot) || !plot.querySelector('.main-svg')) continue;
  const name = (plot.closest('[id]') || plot).id || 'a figure';
  const frame = box(plot.querySelector('.main-svg'));
  const texts = [];
  for (const [what, selector] of TEXTS) {
    for (const el of plot.querySelectorAll(selector)) {
      const words = (el.textContent || '').trim();
      if (words && visible(el)) texts.push({what, words, box: box(el)});
    }
  }
  for (let i = 0; i < texts.length; i++) {
    for (let j = i + 1; j < texts.length; j++) {
      if (overlap(texts[i].box, texts[j].box)) {
        problems.push(`${name}: ${texts[i].what} "${texts[i].words}" overlaps ${texts[j].what} "${texts[j].words}"`);
      }
    }
  }
  const bar = plot.querySelector('.modebar');
  const barBox = bar && bar.getBoundingClientRect().width > 0 ? box(bar) : null;
  for (const t of texts) {
    if (barBox && overlap(t.box, barBox)) problems.push(`${name}: the mode bar covers ${t.what} "${t.words}"`);
    if (!inside(t.box, frame)) problems.push(`${name}: ${t.what} "${t.words}" is cut by the figure's edge`);
  }
  for (const axis of plot.querySelectorAll('.xaxislayer-above, .yaxislayer-above')) {
    const ticks = [...axis.querySelectorAll('.xtick text, .ytick text')].filter(visible).map(
      el => ({words: el.textContent, box: box(el)}));
    for (let i = 0; i + 1 < ticks.length; i++) {
      for (let j = i + 1; j < ticks.length; j++) {
        if (overlap(ticks[i].box, ticks[j].box)) {
          problems.push(`${name}: tick labels "${ticks[i].words}" and "${ticks[j].words}" overlap`);
        }
      }
    }
  }
}
return problems;
"""


CONTROLS_JS = """
const cut = [];
for (const el of document.querySelectorAll('input[type=text], input:not([type]), textarea, .dash-dropdown-value')) {
  const r = el.getBoundingClientRect();
  if (r.width > 0 && (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1)) {
    cut.push(`${el.id || el.closest('[id]').id}: "${(el.value || el.textContent).trim()}" is cut`);
  }
}
return cut;
"""

CANVAS_JS = """
const problems = [];
for (const layer of document.querySelectorAll('canvas[data-id="layer0-selectbox"]')) {
  let box = layer;
  while (box && !box._cyreg) box = box.parentNode;
  if (!box || box.getBoundingClientRect().width === 0) continue;
  const cy = box._cyreg.cy, name = (box.closest('[id]') || box).id;
  const readable = n => parseFloat(n.renderedStyle('font-size')) >= parseFloat(n.style('min-zoomed-font-size') || 0);
  const shown = cy.nodes().filter(n => n.style('label') && readable(n));
  const boxes = shown.map(n => [n.style('label'), n.renderedBoundingBox({includeNodes: false, includeEdges: false,
                                                                          includeLabels: true})]);
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i][1], b = boxes[j][1];
    if (Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1) > 1 && Math.min(a.y2, b.y2) - Math.max(a.y1, b.y1) > 1) {
      problems.push(`${name}: captions "${boxes[i][0]}" and "${boxes[j][0]}" overlap`);
    }
  }
}
return problems;
"""


CONTRAST_JS = """
// WCAG 2.1 1.4.3 for the figures' own texts (axe-core does not read SVG text): each visible text of a Plotly
// figure against what is behind it (its annotation's box, else the figure's paper), 4.5:1, or 3:1 for large text
const rgb = c => { const m = (c || '').match(/[\\d.]+/g); return m ? m.slice(0, 4).map(Number) : null; };
const lum = ([r, g, b]) => { const f = v => (v /= 255) <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
                             return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
const over = (fg, a, bg) => fg.slice(0, 3).map((v, i) => v * a + bg[i] * (1 - a));
const problems = [];
for (const plot of document.querySelectorAll('.js-plotly-plot')) {
  const paper = plot.querySelector('.main-svg');
  if (!paper || !plot.getBoundingClientRect().width) continue;
  const name = (plot.closest('[id]') || plot).id || 'a figure';
  const page = rgb(getComputedStyle(paper).backgroundColor) || [255, 255, 255];
  const back = page.length > 3 && page[3] === 0 ? [255, 255, 255] : page;
  // a heatmap's cell texts are left out: Plotly colours each against its own cell (textfont "auto"), which is
  // drawn as an image this check cannot read
  for (const text of plot.querySelectorAll('text:not(.heatmaplayer text)')) {
    const r = text.getBoundingClientRect();
    if (!r.width || !text.textContent.trim()) continue;
    const style = getComputedStyle(text), fill = rgb(style.fill);
    if (!fill) continue;
    // behind it: its annotation's box, or a marker of its trace it is written on (a vertex's number), or the paper
    const box = text.closest('.annotation') && text.closest('.annotation').querySelector('.bg');
    const cx = (r.left + r.right) / 2, cy = (r.top + r.bottom) / 2;
    const trace = text.closest('.trace');
    const holds = p => { const q = p.getBoundingClientRect();
                         return cx > q.left && cx < q.right && cy > q.top && cy < q.bottom; };
    const own = text.closest('.point') && text.closest('.point').querySelector('path');  // a bar's own text
    const bar = own && holds(own) ? own : null;  // written in it, not above it
    const marker = trace && [...trace.querySelectorAll('.points path.point')].find(holds);
    const plate = box || bar || marker;
    const look = plate && getComputedStyle(plate), plateFill = look && rgb(look.fill);
    const plateAlpha = look ? Number(look.fillOpacity) * Number(look.opacity) : 0;
    const under = plateFill && plateAlpha > 0 ? over(plateFill, plateAlpha, back) : back;
    const ink = over(fill, Number(style.fillOpacity) * Number(style.opacity), under);
    const [a, b] = [lum(ink), lum(under)].sort((x, y) => y - x);
    const ratio = (a + 0.05) / (b + 0.05);
    const size = parseFloat(style.fontSize), bold = Number(style.fontWeight) >= 700;
    const need = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;
    if (ratio < need) {
      const shown = text.textContent.trim().slice(0, 40);
      problems.push(`${name}: "${shown}" has contrast ${ratio.toFixed(2)}:1 (needs ${need}:1)`);
    }
  }
}
return problems;
"""


def figure_problems(driver) -> list[str]:
    """Every readability problem of the figures shown in ``driver``'s page (an empty list when there is none)."""
    return driver.execute_script(PROBLEMS_JS, SLACK)


def page_problems(driver) -> list[str]:
    """The figures' problems, cut values of text boxes and dropdowns, overlapping captions on canvases, and figure
    texts of too little contrast (:data:`CONTRAST_JS`)."""
    return (
        figure_problems(driver)
        + driver.execute_script(CONTROLS_JS)
        + driver.execute_script(CANVAS_JS)
        + driver.execute_script(CONTRAST_JS)
    )


FILL_JS = """
const gd = document.querySelector('#' + arguments[0] + ' .js-plotly-plot');
const box = gd.getBoundingClientRect();
const marks = [...gd.querySelectorAll('.scatterlayer .trace .points path')].map(p => p.getBoundingClientRect())
    .filter(b => b.width > 0);
const right = Math.min(box.right, Math.max(...marks.map(b => b.right)));
return (right - Math.max(box.left, Math.min(...marks.map(b => b.left)))) / box.width;
"""
HOVER_JS = """
const [id, done] = [arguments[0], arguments[arguments.length - 1]];
const gd = document.querySelector('#' + id + ' .js-plotly-plot');
const points = [];
gd._fullData.forEach((trace) => {
  const c = trace.index;
  if (trace.hoverinfo === 'skip' || trace.visible !== true || !trace.x || trace.x.length < 1) return;
  const xs = Array.from(trace.x).map(Number);
  const ok = xs.map((x, j) => [x, j]).filter(p => Number.isFinite(p[0]));
  if (!ok.length) return;
  ok.sort((a, b) => a[0] - b[0]);
  points.push([c, ok[0][1]], [c, ok[ok.length - 1][1]]);
});
const box = gd.getBoundingClientRect(), out = [];
let k = 0;
function next() {
  if (k > 0) {
    const label = gd.querySelector('.hoverlayer .hovertext');
    const r = label ? label.getBoundingClientRect() : null;
    const [c, j] = points[k - 1];
    out.push({trace: gd.data[c].name || String(c), point: j, label: !!label,
              inside: r ? r.left >= box.left - 0.5 && r.right <= box.right + 0.5
                          && r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5 : null,
              box: r ? [Math.round(r.left - box.left), Math.round(r.right - box.left), Math.round(box.width)] : null});
  }
  if (k >= points.length) { Plotly.Fx.unhover(gd); done(out); return; }
  const [c, j] = points[k++];
  Plotly.Fx.hover(gd, [{curveNumber: c, pointNumber: j}]);
  setTimeout(next, 120);
}
next();
"""


def filled(driver, figure: str) -> float:
    """The share of figure ``figure``'s width (its id) that its marks span, from the leftmost to the rightmost."""
    return driver.execute_script(FILL_JS, figure)


def hovers_outside(driver, figure: str) -> list[str]:
    """The hover boxes of figure ``figure``'s leftmost and rightmost point of each trace that reach past the figure
    (Plotly's own hover, ``Plotly.Fx.hover``, one point at a time), each as a line naming the point."""
    driver.set_script_timeout(60)
    shown = driver.execute_async_script(HOVER_JS, figure)
    assert shown and all(h["label"] for h in shown), f"no hover box on {figure}: {shown}"
    return [f"{figure}: {h['trace']} point {h['point']} at {h['box']} px" for h in shown if not h["inside"]]


def viewport(driver, width: int = 1280, height: int = 720) -> None:
    """Make the page's viewport exactly ``width`` by ``height`` CSS pixels (as a 1280×720 projector shows it)."""
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
    )
