// vizcoll: a player's step lit on a large fabric's overview (see vizcoll/ui/components/player.py).
//
// The overview figure carries two invisible layers (meta "overview-messages": a mark on every bundle of links;
// "overview-nodes": a ring on every block). A step lights some of their marks, drawn here on a canvas laid over
// the plot, as vizcoll.ui.figures.blocks.animation_frame draws them for the exports (same sizes, same colours).
// Plotly itself is not asked to redraw: restyling a figure of a few thousand marks costs it 100+ ms a step; the
// canvas takes about a millisecond. The canvas follows zoom, pan and resize (plotly_afterplot, plotly_relayout).
// What is lit stays readable on the graph div: gd.__vizcollLit = {meta: [mark indices]}.
(function () {
    const LAYERS = {'overview-messages': ['bundles', 'messages', 'diamond'],
                    'overview-nodes': ['blocks', 'nodes', 'ring']};

    function rgb(colour) {
        const hex = /^#([0-9a-f]{6})$/i.exec(colour);
        if (hex) {
            const v = parseInt(hex[1], 16);
            return [v >> 16, (v >> 8) & 255, v & 255];
        }
        const parts = String(colour).match(/[\d.]+/g) || [0, 0, 0];
        return parts.slice(0, 3).map(Number);
    }
    function colourAt(scale, t) {  // a Plotly colorscale [[0, c0], ..., [1, c1]] at t in 0..1
        for (let k = 1; k < scale.length; k++) {
            const [t0, c0] = scale[k - 1], [t1, c1] = scale[k];
            if (t <= t1 || k === scale.length - 1) {
                const f = t1 > t0 ? Math.min(Math.max((t - t0) / (t1 - t0), 0), 1) : 0;
                const a = rgb(c0), b = rgb(c1);
                return 'rgb(' + a.map((v, i) => Math.round(v + f * (b[i] - v))).join(',') + ')';
            }
        }
        return 'black';
    }
    function canvasOf(gd) {
        const holder = gd.querySelector('.svg-container');
        if (!holder) {
            return null;
        }
        let canvas = holder.querySelector('canvas.overview-lights');
        if (!canvas) {
            canvas = document.createElement('canvas');
            canvas.className = 'overview-lights';
            canvas.style.cssText = 'position:absolute;left:0;top:0;pointer-events:none;';
            const layers = holder.querySelectorAll('.main-svg');
            holder.insertBefore(canvas, layers.length > 1 ? layers[layers.length - 1] : null);  // under hover labels
        }
        return canvas;
    }
    function mark(ctx, shape, x, y, size, colour) {
        const r = size / 2;
        ctx.beginPath();
        if (shape === 'diamond') {
            ctx.moveTo(x, y - r); ctx.lineTo(x + r, y); ctx.lineTo(x, y + r); ctx.lineTo(x - r, y); ctx.closePath();
            ctx.fillStyle = colour; ctx.fill(); ctx.stroke();
        } else {
            ctx.arc(x, y, r, 0, 2 * Math.PI);
            ctx.strokeStyle = colour; ctx.stroke();
        }
    }
    function draw(gd) {
        const state = gd.__vizcollStep, full = gd._fullLayout;
        const canvas = full && canvasOf(gd);
        if (!canvas) {
            return;
        }
        const ratio = window.devicePixelRatio || 1;
        canvas.width = full.width * ratio; canvas.height = full.height * ratio;
        canvas.style.width = full.width + 'px'; canvas.style.height = full.height + 'px';
        const ctx = canvas.getContext('2d'), size = full._size, xa = full.xaxis, ya = full.yaxis;
        ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
        ctx.clearRect(0, 0, full.width, full.height);
        gd.__vizcollLit = {};
        if (!state || !state.frames) {
            return;
        }
        ctx.save();
        ctx.beginPath(); ctx.rect(size.l, size.t, size.w, size.h); ctx.clip();
        ctx.lineWidth = 2;
        for (const trace of gd._fullData || []) {
            const layer = LAYERS[trace.meta];
            if (!layer) {
                continue;
            }
            const f = state.frames, p = Math.max(0, Math.min(state.position, f[layer[0]].length - 1));
            const index = f[layer[0]][p], count = f[layer[1]][p], top = Math.max(1, ...count);
            const scale = trace.marker.colorscale, edge = trace.marker.line.color;
            gd.__vizcollLit[trace.meta] = index.filter(i => i < trace._length);
            index.forEach(function (i, k) {
                if (i >= trace._length) {
                    return;
                }
                const x = size.l + xa.l2p(trace.x[i]), y = size.t + ya.l2p(trace.y[i]);
                ctx.strokeStyle = edge;
                mark(ctx, layer[2], x, y, 9 + 5 * Math.log2(1 + count[k]), colourAt(scale, count[k] / top));
            });
        }
        ctx.restore();
    }
    const waiting = {};  // graph id -> the timer that shows its step once the figure is drawn
    function show(graphId, frames, position, tries) {
        const holder = document.getElementById(graphId);
        const gd = holder && (holder.classList.contains('js-plotly-plot') ? holder
            : holder.querySelector('.js-plotly-plot'));
        clearTimeout(waiting[graphId]);
        if (!gd) {  // the step came before its figure (a slow answer): shown once the figure is there
            if ((tries || 0) < 600) {
                waiting[graphId] = setTimeout(() => show(graphId, frames, position, (tries || 0) + 1), 100);
            }
            return;
        }
        gd.__vizcollStep = {frames: frames, position: Number(position) || 0};
        if (!gd.__vizcollFollows && gd.on) {
            gd.on('plotly_afterplot', () => draw(gd));
            gd.on('plotly_relayout', () => draw(gd));
            gd.__vizcollFollows = true;
        }
        draw(gd);
    }
    window.vizcollOverview = {show: show};
})();
