// vizcoll: every upload box takes the same file again.
//
// dcc.Upload's file input keeps the last file chosen, and a browser fires no "change" when the same file is
// chosen again (plotly/dash#1287): choosing a topology, scenario, tables or GOAL file a second time did nothing.
// Once the upload box has taken the files of a choice, its input is emptied here; the page's callback resets the
// box's contents after reading them, so the same file is new to Dash too.
document.addEventListener('change', function (event) {
    const input = event.target;
    if (input && input.type === 'file' && input.closest('.upload')) {
        setTimeout(function () { input.value = ''; }, 0);  // after the box has read input.files
    }
}, true);
