// vizcoll: an input's message shown next to the control that caused it.
//
// A page's message box (vizcoll.ui.components.kit.message_box: class "message", role "status") sits in its
// page's layout, sometimes far from the control a user just pressed (/topology's lands 1,200 px below the edit
// buttons). When its text appears it floats just under the last control the user touched (or where the pointer
// was, on a drawing), follows it as the page scrolls and is scrolled into view; it lets clicks through, and goes
// back to its place (its text kept) as soon as the user touches anything else.
(function () {
    const CONTROLS = 'input, button, textarea, select, .upload, .Select, .dash-dropdown, label, a';
    let anchor = null;  // {element, x, y}: what the user touched last, and where

    function remember(event) {
        const target = event.target instanceof Element ? event.target : null;
        if (!target || target.closest('.message')) {
            return;
        }
        anchor = {element: target.closest(CONTROLS) || target, x: event.clientX, y: event.clientY};
        if (event.type === 'pointerdown' || event.type === 'focusin') {  // the user moved on: messages go back
            document.querySelectorAll('.message.floating').forEach(box => box.classList.remove('floating'));
        }
    }
    ['pointerdown', 'focusin', 'change', 'click'].forEach(type => document.addEventListener(type, remember, true));

    function anchorRect() {
        if (!anchor || !document.body.contains(anchor.element)) {
            return null;
        }
        const rect = anchor.element.getBoundingClientRect();
        if (rect.height > 120 && anchor.x !== undefined) {  // a drawing: under the pointer
            return {left: anchor.x, bottom: anchor.y + 12};
        }
        return rect;
    }
    function follow(box) {  // fixed under the anchor, wherever the page is scrolled
        const rect = anchorRect();
        if (!rect) {
            box.classList.remove('floating');
            return false;
        }
        const width = Math.min(box.offsetWidth, document.documentElement.clientWidth);
        box.style.top = (rect.bottom + 6) + 'px';
        box.style.left = Math.max(0, Math.min(rect.left, document.documentElement.clientWidth - width - 8)) + 'px';
        return true;
    }
    function place(box) {
        const text = box.textContent.trim();
        if (!text) {
            box.classList.remove('floating');
            delete box.dataset.shown;
            return;
        }
        if (box.dataset.shown === text) {
            return;
        }
        box.dataset.shown = text;
        box.classList.add('floating');
        timer = timer || setInterval(refollow, 200);
        if (follow(box)) {
            const shown = box.getBoundingClientRect();
            if (shown.bottom > window.innerHeight) {
                window.scrollBy(0, shown.bottom - window.innerHeight + 12);
            }
        }
    }
    let timer = null;
    function refollow() {  // on scroll, resize, and while the page's layout settles (figures drawn, fonts)
        const boxes = document.querySelectorAll('.message.floating');
        boxes.forEach(follow);
        if (!boxes.length && timer) {
            clearInterval(timer);
            timer = null;
        }
    }
    window.addEventListener('scroll', refollow, {passive: true});
    window.addEventListener('resize', refollow);
    function boxesIn(records) {
        const boxes = new Set();
        records.forEach(function (record) {
            const node = record.target.nodeType === 1 ? record.target : record.target.parentElement;
            const box = node && node.closest('.message[role=status]');
            if (box) {
                boxes.add(box);
            }
        });
        return boxes;
    }
    new MutationObserver(records => boxesIn(records).forEach(place)).observe(document.documentElement,
        {childList: true, characterData: true, subtree: true});
})();
