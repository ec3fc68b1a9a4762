// vizcoll: plotly.js loaded with the page, and each figure drawn once when it first shows.
//
// - The page's plotly.js is the one the app names in <meta name="vizcoll-plotly"> (vizcoll/ui/vendor.py: a
//   partial bundle of every trace type the pages draw, a third of the full bundle's start-up).
// - dcc.Graph loads plotly.js when the first figure mounts, and its half a second of start-up then delays every
//   figure (the browser's main thread, issue 23). It takes window.Plotly when there is one, and waits for it
//   when that is a promise (Promise.resolve): so the script is asked for here, as the page starts, and its
//   start-up overlaps the page's first requests instead.
// - dcc.Graph watches its box with a ResizeObserver, which reports every box once when it starts watching, and
//   answers each report with Plotly.Plots.resize. Plotly then redraws the whole figure even when its size did not
//   change (it relayouts with autosize): every figure was drawn twice on load, about 0.3 s on the trees page of a
//   1,570-node fabric. Here a resize to the size the figure already has returns at once; a real change of size
//   (the window, a panel) redraws as before.
// - A figure in a dcc.Graph of class "later" (vizcoll/ui/components/kit.py: graph(later=True), the views the first
//   view does not need) is drawn once the browser is idle, one figure an idle moment: /barrier's histogram and
//   sweep charts, drawn as their answers came, took the main thread from its overview and the player's first
//   frame (issue 23; first frame 1.94 → 1.83 s and 1.92 → 1.78 s, medians of 10). So did /trees' logical tree,
//   drawn before the overview beside it, and /multicast's algorithm B beside A. dcc.Graph waits for the drawing's
//   promise: it stays marked pending until then.
(function () {
    const waiting = [];  // drawings waiting for an idle moment, in the order they were asked for
    function drawNext() {
        waiting.shift()();  // one a moment: each may take a tenth of a second
        if (waiting.length) {
            requestIdleCallback(drawNext, {timeout: 1000});
        }
    }
    function whenIdle(draw) {
        return new Promise((resolve, reject) => {
            waiting.push(() => { try { resolve(draw()); } catch (error) { reject(error); } });
            if (waiting.length === 1) {
                requestIdleCallback(drawNext, {timeout: 1000});
            }
        });
    }
    function sameSize(gd) {  // within a pixel, as Plotly's own autosize tells a change
        const full = gd && gd._fullLayout;
        if (!full) {
            return false;
        }
        const box = window.getComputedStyle(gd);
        return Math.abs(full.width - parseFloat(box.width)) <= 1 && Math.abs(full.height - parseFloat(box.height)) <= 1;
    }
    function patch(plotly) {
        if (!plotly || !plotly.Plots || plotly.Plots.__vizcollResize) {
            return;
        }
        const resize = plotly.Plots.resize;
        plotly.Plots.resize = function (gd) {
            const el = typeof gd === 'string' ? document.getElementById(gd) : gd;
            return sameSize(el) ? Promise.resolve(el) : resize.apply(this, arguments);
        };
        const react = plotly.react;
        plotly.react = function (gd) {
            const el = typeof gd === 'string' ? document.getElementById(gd) : gd;
            const args = arguments;
            return el && el.closest('.later') ? whenIdle(() => react.apply(plotly, args)) : react.apply(this, args);
        };
        plotly.Plots.__vizcollResize = true;
    }
    let plotly = window.Plotly;
    Object.defineProperty(window, 'Plotly', {
        configurable: true,
        get() { return plotly; },
        set(value) { plotly = value; patch(value); },
    });
    patch(plotly);

    // the app's plotly.js (vizcoll/ui/vendor.py: the partial bundle "cartesian" when the server has it)
    const meta = document.querySelector('meta[name="vizcoll-plotly"]');
    const url = meta && meta.content;
    if (plotly || !url) {
        return;
    }
    plotly = new Promise((resolve, reject) => {
        const script = document.createElement('script');
        script.src = url;
        script.async = true;
        script.onload = () => resolve();
        script.onerror = error => { plotly = undefined; reject(error); };
        document.head.appendChild(script);
    });
})();
