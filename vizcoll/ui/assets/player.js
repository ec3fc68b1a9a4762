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

// The player's controls, in the browser (a press is drawn without a round trip to the server): the position and
// play state after a button, a tick of the clock, a new timeline or a new speed. Positions run 0..n (0: the initial
// state); `moments`: the positions of the key moments, in order. Registered as dash_clientside.vizcoll.control by
// vizcoll/ui/components/player.py (register_player).
(function () {
    // The step in the share link: "#s=<scenario>&step=<player>:<n>" opens that player on step n, and
    // "&moment=<player>:<k>" on its k-th key moment (a lesson's step: vizcoll/lessons); read once, as the page loads,
    // before the scenario's own link replaces the address; each step moves the link along.
    const LINKED = /[#&](step|moment)=([\w-]+):(\d+)/.exec(window.location.hash);
    const linked = LINKED ? {kind: LINKED[1], prefix: LINKED[2], at: Number(LINKED[3])} : null;
    function fromLink(prefix, n, moments) {
        if (!linked || linked.prefix !== prefix || n < 1) {
            return null;
        }
        linked.prefix = null;  // once
        const panel = document.getElementById(prefix + '-step');  // a player below the fold: brought on screen
        const around = panel && panel.closest('.player-panel');
        if (around && around.getBoundingClientRect().top > window.innerHeight / 2) {
            around.scrollIntoView({block: 'start'});
        }
        if (linked.kind === 'moment') {
            return moments.length ? moments[Math.min(Math.max(linked.at, 1), moments.length) - 1] : 0;
        }
        return Math.min(linked.at, n);
    }
    function toLink(prefix, position) {
        const share = document.getElementById('share-link');
        const href = share && share.getAttribute('href');
        if (!href || href.indexOf('#s=') < 0) {
            return;
        }
        const base = href.replace(/&(step|moment)=.*$/, '');
        const next = position > 0 ? base + '&step=' + prefix + ':' + position : base;
        if (next !== href) {
            share.setAttribute('href', next);
            window.history.replaceState(window.history.state, '', next);
        }
    }
    function whole(value, low, high) {
        const n = Math.trunc(Number(value));
        return Number.isFinite(n) ? Math.min(Math.max(n, low), high) : low;
    }
    function nextStep(trigger, position, n, playing, moments) {
        position = whole(position, 0, n);
        if (trigger === 'timeline') {  // a new timeline (another scenario, a fault injected here): stay on this step
            return [position, false];
        }
        if (trigger === 'prev-key' || trigger === 'next-key') {
            const later = moments.filter(m => m > position), earlier = moments.filter(m => m < position);
            const target = trigger === 'next-key' ? (later.length ? later[0] : position)
                : (earlier.length ? earlier[earlier.length - 1] : position);
            return [whole(target, 0, n), false];
        }
        if (trigger === 'play') {
            return playing ? [position, false] : [position >= n ? 0 : position, n > 0];
        }
        if (trigger === 'tick') {
            return position < n ? [position + 1, true] : [n, false];
        }
        const moves = {first: 0, back: Math.max(position - 1, 0), forward: Math.min(position + 1, n), last: n};
        return trigger in moves ? [moves[trigger], false] : [position, playing];
    }
    const KEY_PAUSE_MS = 2000;  // a key moment's hold while playing with "pause at key moments" (player.py)
    // inputs: the buttons' clicks, the tick, the number of steps, the speed (ms a step); states: the slider's
    // position, whether the clock is off, the key moments, the "pause at key moments" box. Outputs: position,
    // slider max, clock off, play label, clock interval (the hold on a key moment reached while playing).
    function control() {
        const args = Array.from(arguments), k = args.length, context = window.dash_clientside.callback_context;
        const n = whole(args[k - 6], 0, 1e7), ms = Number(args[k - 5]), speed = ms >= 50 && ms <= 5000 ? ms : 800;
        const moments = Array.isArray(args[k - 2]) ? [...new Set(args[k - 2].filter(
            m => Number.isInteger(m) && m >= 0 && m <= n))].sort((a, b) => a - b) : [];
        const pause = Array.isArray(args[k - 1]) && args[k - 1].includes('pause');
        const prefix = String(context.outputs_list[0].id).replace(/-step$/, '');
        let trigger = context.triggered_id ? String(context.triggered_id).slice(prefix.length + 1) : null;
        trigger = trigger === 'speed' ? null : trigger === 'steps' ? 'timeline' : trigger;
        const start = trigger === 'timeline' ? fromLink(prefix, n, moments) : null;
        const [position, playing] = nextStep(trigger, start === null ? args[k - 4] : start, n, args[k - 3] !== true,
                                             moments);
        // where each player stands, for the lesson presenter around this page (assets/lesson.js)
        const shown = window.vizcollPlayers = window.vizcollPlayers || {};
        shown[prefix] = {position: position, n: n, moments: moments,
                         start: start === null ? (shown[prefix] || {}).start || 0 : start};
        const held = playing && pause && trigger === 'tick' && moments.includes(position);
        return [position, n, !playing, playing ? '❚❚ Pause' : '▶ Play', held ? KEY_PAUSE_MS : speed];
    }
    window.dash_clientside = Object.assign({}, window.dash_clientside);
    window.dash_clientside.vizcoll = Object.assign({}, window.dash_clientside.vizcoll,
                                                   {nextStep: nextStep, control: control, toLink: toLink});
})();
