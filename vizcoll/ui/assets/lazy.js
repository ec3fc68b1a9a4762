// vizcoll: views drawn when they come on the screen, not with the page's first answers.
//
// An element with a data-seen="STORE" attribute sets that dcc.Store's data to true once it shows in the upper three
// quarters of the screen (a figure's edge peeping in at the bottom does not count);
// the callback drawing its views takes the store as an input and draws nothing before. On a large fabric the
// trees page draws four overviews: the two type II ones, below the fold, took half a second of the browser's main
// thread before the player's first frame (issue 23).
(function () {
    const watcher = new IntersectionObserver(entries => {
        for (const entry of entries) {
            if (entry.isIntersecting && window.dash_clientside && window.dash_clientside.set_props) {
                window.dash_clientside.set_props(entry.target.dataset.seen, {data: true});
                watcher.unobserve(entry.target);
            }
        }
    }, {rootMargin: '0px 0px -25% 0px'});
    const watched = new WeakSet();
    function watch() {
        for (const el of document.querySelectorAll('[data-seen]')) {
            if (!watched.has(el)) {
                watched.add(el);
                watcher.observe(el);
            }
        }
    }
    let pending = false;  // one look a frame, however many nodes the figures add
    new MutationObserver(() => {
        if (!pending) {
            pending = true;
            requestAnimationFrame(() => { pending = false; watch(); });
        }
    }).observe(document.documentElement, {childList: true, subtree: true});
})();
