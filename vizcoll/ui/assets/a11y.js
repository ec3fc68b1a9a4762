// vizcoll: what Dash 4's own components (dcc 4.4) render repaired for assistive technology, and the skip link.
//
// The components take no aria attributes, so the page's layout cannot name them; axe-core 4.14 (WCAG 2.1 A and AA)
// found, on every page:
// - RadioItems and Checklist: a role=listbox with no name (aria-input-field-name) whose options are <label
//   role=option> holding a native radio or checkbox (nested-interactive). The native inputs are the controls: the
//   list becomes a radiogroup (a group for a checklist) and the labels plain labels;
// - Dropdown: a readonly <input tabindex=0 aria-hidden=true> that passes the focus on to the dropdown's button
//   (tabindex=-1) (aria-hidden-focus), and a button named by its value alone (button-name when it has none). The
//   button itself takes the focus (Enter, Space or ↓ open it, as before) and is named by its label, then its value;
// - Upload: its <input type=file> has no label; Slider: its thumb (role=slider) and its number boxes neither.
// A control whose id is X is named by the element whose id is "X-label" (kit.field gives every labelled control one),
// else by its own text. React sets role, aria-selected and tabindex again when it draws a component again: each
// change is repaired within the frame (one query per frame that had changes).
(function () {
    'use strict';

    function labelOf(element) {
        const holder = element.closest('[id]');
        return holder && document.getElementById(holder.id + '-label') ? holder.id + '-label' : null;
    }

    function name(element, fallback) {
        if (element.hasAttribute('aria-label') || element.hasAttribute('aria-labelledby')) { return; }
        const label = labelOf(element);
        if (label) {
            element.setAttribute('aria-labelledby', label);
        } else {
            element.setAttribute('aria-label', fallback);
        }
    }

    function repairList(list) {
        list.setAttribute('role', list.classList.contains('dash-radioitems') ? 'radiogroup' : 'group');
        name(list, (list.textContent || '').trim().slice(0, 80) || 'options');
        list.querySelectorAll('.dash-options-list-option[role], .dash-options-list-option[aria-selected]')
            .forEach(function (option) {
                option.removeAttribute('role');
                option.removeAttribute('aria-selected');
            });
    }

    function repairDropdown(button) {
        const target = button.previousElementSibling;
        if (target && target.classList.contains('dash-dropdown-focus-target') && target.tabIndex !== -1) {
            target.tabIndex = -1;
        }
        if (!button.disabled && button.tabIndex !== 0) { button.tabIndex = 0; }
        const label = button.id && document.getElementById(button.id + '-label');
        const named = button.getAttribute('aria-labelledby') || '';
        if (label && named.split(' ').indexOf(label.id) < 0) {
            button.setAttribute('aria-labelledby', (label.id + ' ' + named).trim());
        }
    }

    function repair() {
        scheduled = false;
        const lists = new Set();
        document.querySelectorAll('.dash-options-list[role=listbox], .dash-options-list [role=option]')
            .forEach(function (element) { lists.add(element.closest('.dash-options-list')); });
        lists.forEach(repairList);
        document.querySelectorAll('.dash-dropdown-wrapper > button.dash-dropdown').forEach(repairDropdown);
        document.querySelectorAll('input[type=file]:not([aria-label])').forEach(function (input) {
            const upload = input.parentElement;
            const text = upload ? (upload.textContent || '').trim().split('\n')[0].slice(0, 100) : '';
            input.setAttribute('aria-label', text || 'Choose a file');
        });
        document.querySelectorAll('[role=slider]:not([aria-label]):not([aria-labelledby])').forEach(function (thumb) {
            name(thumb, 'step');
        });
        document.querySelectorAll('.dash-range-slider-input:not([aria-label]):not([aria-labelledby])')
            .forEach(function (input) {
                name(input, 'value');
            });
    }

    let scheduled = false;

    function schedule() {
        if (!scheduled) {
            scheduled = true;
            window.requestAnimationFrame(repair);
        }
    }

    function start() {
        new MutationObserver(schedule).observe(document.body, {
            subtree: true,
            childList: true,
            attributes: true,
            attributeFilter: ['role', 'aria-selected', 'aria-labelledby', 'tabindex'],
        });
        repair();
    }

    // "Skip to the figure": the focus moves to the page's first figure (a drawing or a chart)
    document.addEventListener('click', function (event) {
        const link = event.target.closest && event.target.closest('a.skip-link');
        if (!link) { return; }
        event.preventDefault();
        const figures = document.querySelectorAll('#shell-page .dash-graph, #shell-page [id$="-canvas"]');
        const shown = Array.prototype.filter.call(figures, function (figure) { return figure.offsetParent; });
        const target = shown[0] || document.getElementById('shell-page');
        if (!target.hasAttribute('tabindex')) { target.setAttribute('tabindex', '-1'); }
        target.focus();
        target.scrollIntoView({block: 'start'});
    });

    if (document.body) { start(); } else { document.addEventListener('DOMContentLoaded', start); }
}());
