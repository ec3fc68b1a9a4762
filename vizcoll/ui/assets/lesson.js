// vizcoll: the lesson presenter (vizcoll/ui/pages/lessons/present.py), its speaker notes window (notes.py), and a
// page shown inside the presenter's frame.
//
// → / Page Down: the next key moment of the step's player, else the next step; ← / Page Up: the previous key
// moment (not before the one the step opens on), else the previous step; N / P: the next / previous step at once
// (reveal.js's keys), skipping the key moments left; Home / End: the first / last step. The
// keys work with the focus in the frame too (the live page forwards them here). The step is drawn in the browser:
// the frame opens the step's link, its narration is shown, "step k of n" said, the address keeps "?step=k", and the
// notes window (a BroadcastChannel) follows.
(function () {
    const CHANNEL = 'vizcoll-lesson';
    const KEYS = {ArrowRight: 1, PageDown: 1, ArrowLeft: -1, PageUp: -1};
    const STEPS = {n: 1, N: 1, p: -1, P: -1};  // a whole step, whatever the player shows
    const channel = 'BroadcastChannel' in window ? new BroadcastChannel(CHANNEL) : null;
    const embedded = window.self !== window.top;

    if (embedded) {  // a lesson's live view: no navbar; the lesson's keys go to the presenter
        document.documentElement.classList.add('embedded');
        window.addEventListener('keydown', function (event) {
            const lesson = window.parent.vizcollLesson;
            if (lesson && lesson.handles(event)) {
                event.preventDefault();
                event.stopImmediatePropagation();
                lesson.key(event.key);
            }
        }, true);
    }

    function lessonData() {
        const holder = document.getElementById('lesson-data');
        return holder ? JSON.parse(holder.getAttribute('data-lesson')) : null;
    }
    function typing(target) {
        return !!(target && target.closest && target.closest('input, textarea, select, .dash-dropdown'));
    }
    function playerState(data) {  // where the step's player stands in the frame (assets/player.js), or null
        const prefix = data.players[data.index], frame = document.getElementById('lesson-view');
        try {
            const players = prefix && frame && frame.contentWindow && frame.contentWindow.vizcollPlayers;
            return players && players[prefix] ? {prefix: prefix, frame: frame, state: players[prefix]} : null;
        } catch (error) {
            return null;
        }
    }
    function show(index) {
        const data = lessonData();
        if (!data) {
            return;
        }
        const n = data.hrefs.length, k = Math.min(Math.max(index, 0), n - 1);
        if (k === data.index) {
            return;
        }
        data.index = k;
        document.getElementById('lesson-data').setAttribute('data-lesson', JSON.stringify(data));
        document.getElementById('lesson-view').setAttribute('src', data.hrefs[k]);
        document.querySelectorAll('#lesson-narration .lesson-narration-step').forEach(function (section, i) {
            section.hidden = i !== k;
        });
        document.getElementById('lesson-step').textContent = 'step ' + (k + 1) + ' of ' + n;
        const url = new URL(window.location.href);
        url.searchParams.set('step', String(k + 1));
        window.history.replaceState(window.history.state, '', url.toString());
        if (channel) {
            channel.postMessage({key: data.key, index: k});
        }
    }
    function move(direction) {
        const data = lessonData();
        if (!data) {
            return;
        }
        const found = playerState(data);
        if (found) {
            const s = found.state, moments = s.moments || [];
            const target = direction > 0 ? moments.find(m => m > s.position)
                : moments.filter(m => m < s.position && m >= s.start).pop();
            const button = found.frame.contentDocument.getElementById(
                found.prefix + (direction > 0 ? '-next-key' : '-prev-key'));
            if (target !== undefined && button && !button.disabled) {
                button.click();
                return;
            }
        }
        show(data.index + direction);
    }
    function key(name) {
        if (name in KEYS) {
            move(KEYS[name]);
        } else if (name in STEPS) {
            const data = lessonData();
            show(data.index + STEPS[name]);
        } else if (name === 'Home' || name === 'End') {
            const data = lessonData();
            show(name === 'Home' ? 0 : data.hrefs.length - 1);
        }
    }
    function handles(event) {
        return !event.altKey && !event.ctrlKey && !event.metaKey && !typing(event.target)
            && (event.key in KEYS || event.key in STEPS
                || (!embedded && (event.key === 'Home' || event.key === 'End')));
    }
    function fit() {  // the frame's 1280 px page scaled to its box (style.css sets the scale for 1280x720)
        const frame = document.getElementById('lesson-view'), box = frame && frame.parentElement;
        if (box && box.clientWidth > 0) {
            const scale = box.clientWidth / 1280;
            frame.style.transform = 'scale(' + scale + ')';
            frame.style.height = (box.clientHeight / scale) + 'px';
        }
    }
    window.addEventListener('resize', fit);
    document.addEventListener('fullscreenchange', fit);
    window.vizcollLesson = {key: key, handles: handles, move: move, show: show, fit: fit};

    document.addEventListener('keydown', function (event) {
        if (embedded || !document.getElementById('lesson-data') || !handles(event)) {
            return;
        }
        event.preventDefault();
        key(event.key);
    });
    document.addEventListener('click', function (event) {
        const id = event.target && event.target.id;
        if (id === 'lesson-next' || id === 'lesson-prev') {
            move(id === 'lesson-next' ? 1 : -1);
        } else if (id === 'lesson-fullscreen' && document.documentElement.requestFullscreen) {
            document.documentElement.requestFullscreen();
        } else if (id === 'lesson-notes-open') {
            const data = lessonData();
            if (data) {  // the notes open on the presenter's step, then follow it
                const [path, fragment] = data.notes.split('#');
                const joined = path + (path.indexOf('?') >= 0 ? '&' : '?') + 'step=' + (data.index + 1);
                window.open(joined + (fragment ? '#' + fragment : ''), 'vizcoll-notes', 'width=900,height=700');
            }
        }
    });

    if (channel) {  // the notes window follows the presenter's step; a new one asks where it is
        channel.onmessage = function (message) {
            const notes = document.getElementById('lesson-notes'), data = lessonData(), said = message.data || {};
            if (notes && said.key === notes.getAttribute('data-key') && Number.isInteger(said.index)) {
                notes.querySelectorAll('.lesson-notes-step').forEach(function (section, i) {
                    section.hidden = i !== said.index;
                });
            } else if (data && said.ask === data.key) {
                channel.postMessage({key: data.key, index: data.index});
            }
        };
    }
    if (channel && window.location.pathname === '/lessons/notes') {
        const asking = setInterval(function () {
            const notes = document.getElementById('lesson-notes');
            if (notes) {
                channel.postMessage({ask: notes.getAttribute('data-key')});
                clearInterval(asking);
            }
        }, 300);
        setTimeout(function () { clearInterval(asking); }, 30000);
    }
})();
