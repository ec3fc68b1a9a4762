// vizcoll: Enter in a spec box presses its page's Generate button (a textarea would take a new line instead).
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
