// vizcoll: the timeline players answer the keyboard (see vizcoll/ui/components/player.py).
//
// space: play / pause; ← / →: back / forward one step; Page Up / Page Down or Shift + ← / →: previous / next key
// moment; Home / End: first / last step. The keys drive the player the user last pressed, clicked or pointed
// into (its panel, drawing included), else the first player on screen. A key typed in a text box or a dropdown is
// left alone, and so is space on a focused button outside the players (it presses that button) and an arrow on a
// focused slider (it moves the slider itself); space on a player's own button plays or pauses.
(function () {
    const ACTIONS = {' ': 'play', 'ArrowLeft': 'back', 'ArrowRight': 'forward', 'PageUp': 'prev-key',
                     'PageDown': 'next-key', 'Home': 'first', 'End': 'last'};
    let current = null;

    function playerOf(element) {
        const panel = element && element.closest && element.closest('.player-panel, .player');
        if (!panel) {
            return null;
        }
        return panel.classList.contains('player') ? panel : panel.querySelector('.player');
    }
    function onScreen(element) {
        const box = element.getBoundingClientRect();
        return box.width > 0 && box.bottom > 0 && box.top < window.innerHeight;
    }
    function typing(target) {
        if (!target || !target.closest) {
            return false;
        }
        return target.isContentEditable || !!target.closest('input, textarea, select, .Select, .dash-dropdown');
    }
    function remember(event) {
        const found = playerOf(event.target);
        if (found) {
            current = found;
        }
    }
    document.addEventListener('pointerdown', remember, true);
    document.addEventListener('focusin', remember, true);

    document.addEventListener('keydown', function (event) {
        if (event.altKey || event.ctrlKey || event.metaKey || typing(event.target)) {
            return;
        }
        let action = ACTIONS[event.key];
        if (event.shiftKey && (event.key === 'ArrowLeft' || event.key === 'ArrowRight')) {
            action = event.key === 'ArrowLeft' ? 'prev-key' : 'next-key';
        }
        const onSlider = event.target.closest && event.target.closest('.dash-slider-container, .rc-slider');
        const onButton = event.target.tagName === 'BUTTON' && event.key === ' '
            && !event.target.classList.contains('player-button');
        if (!action || onButton || (onSlider && !event.shiftKey)) {
            return;
        }
        const players = [...document.querySelectorAll('.player')];
        const target = (current && document.contains(current) && onScreen(current)) ? current
            : players.find(onScreen);
        const button = target && target.querySelector('.player-' + action);
        if (button && !button.disabled) {
            event.preventDefault();
            button.click();
        }
    });
})();
