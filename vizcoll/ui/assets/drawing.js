// vizcoll: "Download PNG" and "Download SVG" of a drawing on a cytoscape canvas save the drawing with its title
// above it and its legend below it, as the page shows them (the canvas's own image has neither: a slide or a
// paper needs both). The SVG nests cytoscape-svg's drawing of the canvas (assets/canvas.js registers it).
//
// vizcoll/ui/components/kit.py asks the canvas for its image (generateImage, action "store"); its imageData comes
// here (a clientside callback), is drawn on a white sheet under the drawing's heading (the first h2/h3 of the
// panel around it) and the player's caption (when the panel has a player), above the panel's legend: each entry's
// swatch drawn with its own colours (fill, ring, dashed line), then its text. The sheet is saved as FILENAME.png.
(function () {
    'use strict';
    const FONT = 'Liberation Sans, Arial, sans-serif';

    function panelOf(canvas) {
        let box = canvas.parentElement;
        while (box && box.id !== 'shell-page' && !box.querySelector('h2, h3')) { box = box.parentElement; }
        return box || document.body;
    }

    function swatchStyle(swatch) {
        const s = getComputedStyle(swatch);
        const fill = s.backgroundColor, pattern = s.backgroundImage || '';
        const painted = pattern.match(/rgba?\([^)]*\)/);  // a dashed line is a repeating gradient
        const width = swatch.offsetWidth, height = swatch.offsetHeight;
        return {
            fill: fill && fill !== 'rgba(0, 0, 0, 0)' && fill !== 'transparent' ? fill : (painted ? painted[0] : null),
            ring: parseFloat(s.borderTopWidth) > 0 ? s.borderTopColor : null,
            ringWidth: parseFloat(s.borderTopWidth) || 0,
            dashed: s.borderTopStyle === 'dashed' || s.borderTopStyle === 'dotted' || pattern.indexOf('repeating') >= 0,
            round: parseFloat(s.borderTopLeftRadius) >= width / 3,
            line: height > 0 && height < width / 2,
        };
    }

    function legendEntries(panel) {
        const legend = panel.querySelector('.legend');
        if (!legend) { return []; }
        return Array.prototype.map.call(legend.children, function (entry) {
            const swatch = entry.querySelector('.swatch');
            return {text: (entry.textContent || '').trim(), style: swatch ? swatchStyle(swatch) : null};
        }).filter(function (entry) { return entry.text; });
    }

    function drawSwatch(ctx, style, x, y, size) {
        ctx.save();
        if (style.dashed) { ctx.setLineDash([size / 4, size / 6]); }
        if (style.line || (style.dashed && !style.fill)) {
            ctx.strokeStyle = style.ring || style.fill || '#000';
            ctx.lineWidth = Math.max(3, size / 4);
            ctx.beginPath();
            ctx.moveTo(x, y + size / 2);
            ctx.lineTo(x + size, y + size / 2);
            ctx.stroke();
        } else {
            ctx.beginPath();
            if (style.round) {
                ctx.arc(x + size / 2, y + size / 2, size / 2 - 1, 0, 2 * Math.PI);
            } else {
                ctx.rect(x + 1, y + 1, size - 2, size - 2);
            }
            if (style.fill) { ctx.fillStyle = style.fill; ctx.fill(); }
            if (style.ring) { ctx.strokeStyle = style.ring; ctx.lineWidth = Math.max(2, style.ringWidth); ctx.stroke(); }
        }
        ctx.restore();
    }

    function wrapped(ctx, text, width) {
        const lines = [];
        let line = '';
        text.split(/\s+/).forEach(function (word) {
            const next = line ? line + ' ' + word : word;
            if (ctx.measureText(next).width > width && line) { lines.push(line); line = word; } else { line = next; }
        });
        if (line) { lines.push(line); }
        return lines;
    }

    // where the title, the caption, the drawing (w x h) and the legend's rows go on the sheet
    function layoutOf(w, h, title, caption, entries) {
        const pad = Math.round(w / 60), big = Math.max(18, Math.round(w / 45)), small = Math.round(big * 0.7);
        const ctx = document.createElement('canvas').getContext('2d');  // to measure the texts
        ctx.font = 'bold ' + big + 'px ' + FONT;
        const titleLines = title ? wrapped(ctx, title, w - 2 * pad) : [];
        ctx.font = small + 'px ' + FONT;
        const captionLines = caption ? wrapped(ctx, caption, w - 2 * pad) : [];
        const rows = [[]];  // the legend's entries flow in rows
        let used = pad;
        entries.forEach(function (entry) {
            const width = small * 1.6 + ctx.measureText(entry.text).width + small;
            if (used + width > w - pad && rows[rows.length - 1].length) { rows.push([]); used = pad; }
            rows[rows.length - 1].push({entry: entry, x: used});
            used += width;
        });
        const top = pad + titleLines.length * big * 1.25 + captionLines.length * small * 1.3 + (title ? pad / 2 : 0);
        const legendHeight = entries.length ? rows.length * small * 1.6 + pad : 0;
        return {w: w, h: h, pad: pad, big: big, small: small, titleLines: titleLines, captionLines: captionLines,
                rows: rows, top: top, height: Math.round(top + h + legendHeight + pad)};
    }

    function textLines(at, draw) {  // draw(text, x, y, font, colour) for every line of the title and the caption
        at.titleLines.forEach(function (line, k) {
            draw(line, at.pad, at.pad + k * at.big * 1.25, 'bold ' + at.big + 'px ' + FONT, '#1f2933', at.big);
        });
        at.captionLines.forEach(function (line, k) {
            draw(line, at.pad, at.pad + at.titleLines.length * at.big * 1.25 + k * at.small * 1.3,
                at.small + 'px ' + FONT, '#3e4c59', at.small);
        });
        at.rows.forEach(function (row, r) {
            row.forEach(function (item) {
                draw(item.entry.text, item.x + at.small * 1.6, legendTop(at) + r * at.small * 1.6,
                    at.small + 'px ' + FONT, '#1f2933', at.small);
            });
        });
    }

    function legendTop(at) { return at.top + at.h + at.pad / 2; }

    function compose(image, title, caption, entries) {
        const at = layoutOf(image.width, image.height, title, caption, entries);
        const sheet = document.createElement('canvas');
        sheet.width = at.w;
        sheet.height = at.height;
        const ctx = sheet.getContext('2d');
        ctx.fillStyle = '#ffffff';
        ctx.fillRect(0, 0, sheet.width, sheet.height);
        ctx.textBaseline = 'top';
        textLines(at, function (text, x, y, font, colour) { ctx.font = font; ctx.fillStyle = colour; ctx.fillText(text, x, y); });
        ctx.drawImage(image, 0, at.top);
        at.rows.forEach(function (row, r) {
            row.forEach(function (item) {
                if (item.entry.style) { drawSwatch(ctx, item.entry.style, item.x, legendTop(at) + r * at.small * 1.6, at.small * 1.1); }
            });
        });
        return sheet;
    }

    function escaped(text) {
        return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
    }

    function svgSwatch(style, x, y, size) {
        const dash = style.dashed ? ' stroke-dasharray="' + size / 4 + ' ' + size / 6 + '"' : '';
        if (style.line || (style.dashed && !style.fill)) {
            return '<line x1="' + x + '" y1="' + (y + size / 2) + '" x2="' + (x + size) + '" y2="' + (y + size / 2) +
                '" stroke="' + (style.ring || style.fill || '#000') + '" stroke-width="' + Math.max(3, size / 4) + '"' + dash + '/>';
        }
        const paint = ' fill="' + (style.fill || 'none') + '"' + (style.ring ? ' stroke="' + style.ring +
            '" stroke-width="' + Math.max(2, style.ringWidth) + '"' : '');
        return style.round
            ? '<circle cx="' + (x + size / 2) + '" cy="' + (y + size / 2) + '" r="' + (size / 2 - 1) + '"' + paint + '/>'
            : '<rect x="' + (x + 1) + '" y="' + (y + 1) + '" width="' + (size - 2) + '" height="' + (size - 2) + '"' + paint + '/>';
    }

    // the drawing's SVG (cytoscape-svg's) nested in a sheet with the same title, caption and legend as the PNG's
    function composeSvg(svg, title, caption, entries) {
        const root = new DOMParser().parseFromString(svg, 'image/svg+xml').documentElement;
        const w = parseFloat(root.getAttribute('width')) || 800, h = parseFloat(root.getAttribute('height')) || 600;
        const at = layoutOf(w, h, title, caption, entries), parts = [];
        parts.push('<rect width="100%" height="100%" fill="#ffffff"/>');
        textLines(at, function (text, x, y, font, colour, size) {
            parts.push('<text x="' + x + '" y="' + (y + size * 0.8) + '" style="font: ' + font + '" fill="' + colour + '">' +
                escaped(text) + '</text>');
        });
        root.setAttribute('x', 0);
        root.setAttribute('y', at.top);
        parts.push(new XMLSerializer().serializeToString(root));
        at.rows.forEach(function (row, r) {
            row.forEach(function (item) {
                if (item.entry.style) { parts.push(svgSwatch(item.entry.style, item.x, legendTop(at) + r * at.small * 1.6, at.small * 1.1)); }
            });
        });
        return '<svg xmlns="http://www.w3.org/2000/svg" width="' + at.w + '" height="' + at.height + '" viewBox="0 0 ' +
            at.w + ' ' + at.height + '">' + parts.join('') + '</svg>';
    }

    function save(blob, name) {
        const link = document.createElement('a');
        link.href = URL.createObjectURL(blob);
        link.download = name;
        document.body.appendChild(link);
        link.click();
        link.remove();
        setTimeout(function () { URL.revokeObjectURL(link.href); }, 10000);
    }

    // data: the canvas's PNG (imageData); format: the file's, "png" or "svg" (the line's data-format)
    window.vizcollSaveDrawing = function (canvasId, data, filename, format) {
        const canvas = document.getElementById(canvasId);
        if (!data || !canvas) { return window.dash_clientside.no_update; }
        const panel = panelOf(canvas);
        const heading = panel.querySelector('h2, h3');
        const caption = panel.querySelector('.player-caption');
        const title = heading ? heading.textContent.trim() : document.title;
        const said = caption ? caption.textContent.trim() : '';
        if (format === 'svg') {
            const layer = canvas.querySelector('canvas[data-id="layer0-selectbox"]');
            const cy = layer && window.vizcollCyOf ? window.vizcollCyOf(layer) : null;
            if (!cy || !cy.svg) { return 'the drawing is not ready: press Download SVG again'; }
            const svg = composeSvg(cy.svg({full: true, bg: '#ffffff'}), title, said, legendEntries(panel));
            save(new Blob([svg], {type: 'image/svg+xml;charset=utf-8'}), filename + '.svg');
            return window.dash_clientside.no_update;
        }
        const image = new Image();
        image.onload = function () {
            compose(image, title, said, legendEntries(panel)).toBlob(function (blob) { save(blob, filename + '.png'); }, 'image/png');
        };
        image.src = data.indexOf('data:') === 0 ? data : 'data:image/png;base64,' + data;
        return window.dash_clientside.no_update;
    };
}());
