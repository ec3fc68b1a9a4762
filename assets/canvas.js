// vizcoll: a click on a cytoscape canvas hits the node under the pointer, even after the page moved the canvas.
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
    function refresh(event) {
        const cy = cyOf(event.target);
        if (cy) {
            cy.resize();
        }
    }
    for (const name of ['pointerdown', 'pointerover', 'touchstart']) {
        document.addEventListener(name, refresh, {capture: true, passive: true});
    }
})();
