// vizcoll: Enter in a spec box presses its page's Generate button (a textarea would take a new line instead); Ctrl+Z and
// Ctrl+Shift+Z undo and redo the scenario's steps (below).
//
// The topology spec is a textarea so that a long spec wraps where it can be read whole; a spec is one line, so
// no Enter ever types a new line in it.
document.addEventListener('keydown', function (event) {
    const box = event.target;
    if (event.key === 'Enter' && box && box.classList && box.classList.contains('spec-box')) {
        event.preventDefault();
        const button = document.getElementById('topo-generate');
        if (button) { button.click(); }
    }
}, true);

// Ctrl+Z undoes the last edit, break or communicator change of the scenario; Ctrl+Shift+Z and Ctrl+Y redo it
// (vizcoll/ui/components/history.py). Not in a text box, which keeps its own undo.
document.addEventListener('keydown', function (event) {
    if (!(event.ctrlKey || event.metaKey) || event.altKey) { return; }
    const key = event.key.toLowerCase();
    const redo = (key === 'z' && event.shiftKey) || (key === 'y' && !event.shiftKey);
    if (key !== 'z' && !redo) { return; }
    const box = event.target;
    const typed = box && box.tagName === 'INPUT' && !['radio', 'checkbox', 'button', 'range', 'file'].includes(box.type);
    if (box && (box.isContentEditable || box.tagName === 'TEXTAREA' || typed)) { return; }
    const button = document.getElementById(redo ? 'topo-redo' : 'topo-undo');
    if (button && !button.disabled) {
        event.preventDefault();
        button.click();
    }
});
