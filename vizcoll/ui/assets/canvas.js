// vizcoll: a click on a cytoscape canvas hits the node under the pointer, even after the page moved the canvas;
// a canvas drawn while hidden is fitted when it shows, and one whose new nodes fall outside its view too; a
// canvas saves itself as SVG; an idle canvas lets the browser rest.
//
// Cytoscape caches where its canvas sits on the page and refreshes that only on window scrolls and resizes. When
// the page above it grows (the scenario badge, a message, a banner filled in by a callback), the canvas moves
// down while the cache keeps its old place, and a click lands on whatever was drawn that many pixels away (a
// link below core0 instead of core0). Before cytoscape sees a press or the pointer entering, its cache is
// dropped (cy.resize() re-reads the container's place).
(function () {
    function cyOf(element) {
        for (let el = element; el && el !== document; el = el.parentNode) {
            if (el._cyreg && el._cyreg.cy) {
                return el._cyreg.cy;
            }
        }
        return null;
    }
    window.vizcollCyOf = cyOf;  // assets/drawing.js: the canvas's core for its SVG
    // SVG export: the page loads dash-cytoscape's base bundle and cytoscape-svg on its own (vizcoll/ui/vendor.py;
    // the extra bundle that has it is 1.4 MB where the base one is 0.5 MB), so cytoscape-svg is registered here on
    // the core of the page's canvases (one for all), as cytoscape('core', 'svg', ...) would: each canvas found
    // below, and every canvas as soon as anything is pressed, before a "Download SVG" can ask for it.
    function addSvg(cy) {
        const core = Object.getPrototypeOf(cy);
        if (window.cytoscapeSvg && !core.svg) {
            window.cytoscapeSvg(function (type, name, impl) {
                if (type === 'core') {
                    core[name] = impl;
                }
            });
        }
    }
    function refresh(event) {
        const cy = cyOf(event.target);
        if (cy) {
            cy.resize();
        }
    }
    for (const name of ['pointerdown', 'pointerover', 'touchstart']) {
        document.addEventListener(name, refresh, {capture: true, passive: true});
    }
    function eachCanvas(fn) {
        for (const layer of document.querySelectorAll('canvas[data-id="layer0-selectbox"]')) {
            const cy = cyOf(layer);
            if (cy) {
                fn(cy, layer);
            }
        }
    }
    for (const name of ['pointerdown', 'keydown']) {
        document.addEventListener(name, () => eachCanvas(addSvg), {capture: true, passive: true});
    }

    // A canvas hidden (display: none) while its drawing arrives fits it into no room at all (the topology page
    // shows a large fabric's overview, then one pod alone on the canvas). When it shows again, it is fitted.
    const widths = new WeakMap();
    const watcher = new ResizeObserver(entries => {
        for (const entry of entries) {
            const was = widths.get(entry.target), now = entry.contentRect.width;
            widths.set(entry.target, now);
            if (was === 0 && now > 0 && entry.target._cyreg) {
                entry.target._cyreg.cy.resize();
                entry.target._cyreg.cy.fit(undefined, 30);
            }
        }
    });
    // Nodes added to a drawing (an edit on /topology) that land outside the view bring the whole drawing into
    // view: a fabric of one node is fitted at the largest zoom, and the next nodes fell off the canvas.
    function followAdded(cy) {
        let pending = null;
        cy.on('add', 'node', function () {
            clearTimeout(pending);
            pending = setTimeout(function () {
                const view = cy.extent(), all = cy.nodes().boundingBox();
                if (all.x1 < view.x1 || all.x2 > view.x2 || all.y1 < view.y1 || all.y2 > view.y2) {
                    if (window.matchMedia('(prefers-reduced-motion: reduce)').matches) {
                        cy.fit(undefined, 30);  // no animated move for those who asked for less motion
                    } else {
                        cy.animate({fit: {padding: 30}, duration: 200});
                    }
                }
            }, 100);
        });
    }

    // Cytoscape draws in a loop that asks the browser for every animation frame and draws only in those where
    // something changed (cytoscape.js issue 2656): a page showing a drawing that did not move made 60 frames a
    // second, most of what Chromium spent on it (measured: docs/benchmarks.md, "A page left open"). A second
    // after the last redraw a canvas asked for, its loop gets a frame five times a second instead, for its
    // animations and texture caches to step on; the next redraw asked for (a new stylesheet, a hover, a pan, a
    // new canvas) wakes it at once. The loop is known by its source (it reads the renderer's requestedFrame);
    // every other request for a frame (plotly.js, the players) goes to the browser as it is.
    const AWAKE_MS = 1000, IDLE_FRAME_MS = 200;
    const browserFrame = window.requestAnimationFrame.bind(window);
    const isLoop = new WeakMap();
    const idle = {awakeUntil: 0, parked: [], timer: null};
    window.vizcollIdleCanvas = idle;  // tests/browser/test_components.py, benchmarks/idle_page.py
    function release() {
        clearTimeout(idle.timer);
        idle.timer = null;
        const waiting = idle.parked;
        idle.parked = [];
        waiting.forEach(browserFrame);
    }
    function wake() {
        idle.awakeUntil = performance.now() + AWAKE_MS;
        release();
    }
    window.requestAnimationFrame = function (callback) {
        if (typeof callback !== 'function') {
            return browserFrame(callback);  // the browser's own error
        }
        let loop = isLoop.get(callback);
        if (loop === undefined) {
            loop = String(callback).indexOf('requestedFrame') >= 0;
            isLoop.set(callback, loop);
            if (loop) {
                wake();  // a new canvas: its first drawings come at once
            }
        }
        if (!loop || performance.now() < idle.awakeUntil) {
            return browserFrame(callback);
        }
        idle.parked.push(callback);
        idle.timer = idle.timer || setTimeout(release, IDLE_FRAME_MS);
        return 0;
    };
    function wakeOnRedraw(cy) {  // on the renderers' prototype: every canvas of the page at once
        const renderer = cy.renderer(), shared = renderer && Object.getPrototypeOf(renderer);
        if (shared && typeof shared.redraw === 'function' && !shared.redraw.wakes) {
            const redraw = shared.redraw;
            shared.redraw = function () {
                wake();
                return redraw.apply(this, arguments);
            };
            shared.redraw.wakes = true;
        }
    }

    setInterval(function () {
        eachCanvas(function (cy, layer) {
            addSvg(cy);
            wakeOnRedraw(cy);
            let box = layer;
            while (box && !box._cyreg) { box = box.parentNode; }
            if (box && !widths.has(box)) {
                widths.set(box, box.getBoundingClientRect().width);
                watcher.observe(box);
                followAdded(cy);
            }
        });
    }, 500);
})();
