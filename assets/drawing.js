// vizcoll: "Download PNG" of a drawing on a cytoscape canvas saves the drawing with its title above it and its
// legend below it, as the page shows them (the canvas's own image has neither: a slide or a paper needs both).
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

    function compose(image, title, caption, entries) {
        const w = image.width, pad = Math.round(w / 60), big = Math.max(18, Math.round(w / 45));
        const small = Math.round(big * 0.7), sheet = document.createElement('canvas');
        const ctx = sheet.getContext('2d');
        ctx.font = 'bold ' + big + 'px ' + FONT;
        const titleLines = title ? wrapped(ctx, title, w - 2 * pad) : [];
        ctx.font = small + 'px ' + FONT;
        const captionLines = caption ? wrapped(ctx, caption, w - 2 * pad) : [];
        // the legend's entries flow in rows
        const rows = [[]];
        let used = pad;
        entries.forEach(function (entry) {
            const width = small * 1.6 + ctx.measureText(entry.text).width + small;
            if (used + width > w - pad && rows[rows.length - 1].length) { rows.push([]); used = pad; }
            rows[rows.length - 1].push(entry);
            used += width;
        });
        const top = pad + titleLines.length * big * 1.25 + captionLines.length * small * 1.3 + (title ? pad / 2 : 0);
        const legendHeight = entries.length ? rows.length * small * 1.6 + pad : 0;
        sheet.width = w;
        sheet.height = Math.round(top + image.height + legendHeight + pad);
        ctx.fillStyle = '#ffffff';
        ctx.fillRect(0, 0, sheet.width, sheet.height);
        ctx.fillStyle = '#1f2933';
        ctx.textBaseline = 'top';
        ctx.font = 'bold ' + big + 'px ' + FONT;
        titleLines.forEach(function (line, k) { ctx.fillText(line, pad, pad + k * big * 1.25); });
        ctx.font = small + 'px ' + FONT;
        ctx.fillStyle = '#3e4c59';
        captionLines.forEach(function (line, k) {
            ctx.fillText(line, pad, pad + titleLines.length * big * 1.25 + k * small * 1.3);
        });
        ctx.drawImage(image, 0, top);
        let y = top + image.height + pad / 2;
        rows.forEach(function (row) {
            let x = pad;
            row.forEach(function (entry) {
                if (entry.style) { drawSwatch(ctx, entry.style, x, y, small * 1.1); }
                ctx.fillStyle = '#1f2933';
                ctx.fillText(entry.text, x + small * 1.6, y);
                x += small * 1.6 + ctx.measureText(entry.text).width + small;
            });
            y += small * 1.6;
        });
        return sheet;
    }

    window.vizcollSaveDrawing = function (canvasId, data, filename) {
        const canvas = document.getElementById(canvasId);
        if (!data || !canvas) { return window.dash_clientside.no_update; }
        const panel = panelOf(canvas);
        const heading = panel.querySelector('h2, h3');
        const caption = panel.querySelector('.player-caption');
        const image = new Image();
        image.onload = function () {
            const sheet = compose(image, heading ? heading.textContent.trim() : document.title,
                caption ? caption.textContent.trim() : '', legendEntries(panel));
            sheet.toBlob(function (blob) {
                const link = document.createElement('a');
                link.href = URL.createObjectURL(blob);
                link.download = filename + '.png';
                document.body.appendChild(link);
                link.click();
                link.remove();
                setTimeout(function () { URL.revokeObjectURL(link.href); }, 10000);
            }, 'image/png');
        };
        image.src = data.indexOf('data:') === 0 ? data : 'data:image/png;base64,' + data;
        return window.dash_clientside.no_update;
    };
}());
