// vizcoll: a <details> with an id reports its `open` to Dash as the user opens or closes it (Dash's html.Details
// does not), so that a callback computes a folded panel's contents only once it is opened (links and nodes by
// name: vizcoll/ui/components/links.py). The toggle event does not bubble: it is caught on its way down.
document.addEventListener('toggle', function (event) {
    const details = event.target;
    if (details.tagName === 'DETAILS' && details.id && details.id[0] !== '{' && window.dash_clientside && window.dash_clientside.set_props) {
        window.dash_clientside.set_props(details.id, {open: details.open});
    }
}, true);
