#!/usr/bin/env node
// Renders one Vega specification to SVG with Vega's own headless renderer:
//   node vega-render.js SPEC.json OUT.svg
// The modules are Debian's node-vega packages in /usr/share/nodejs (or $RIDGE_NODE_MODULES). They are
// put on the module path here because Debian's vega entry point is an unbuilt ES module that Node
// cannot resolve there; its building blocks are CommonJS and load directly.
const path = require('path');
const fs = require('fs');
const moduleDir = process.env.RIDGE_NODE_MODULES || '/usr/share/nodejs';
process.env.NODE_PATH = [moduleDir, process.env.NODE_PATH].filter(Boolean).join(path.delimiter);
require('module').Module._initPaths();

function fail(message) {
  process.stderr.write('vega-render: ' + message + '\n');
  process.exit(1);
}
if (process.argv.length !== 4) fail('usage: vega-render.js SPEC.json OUT.svg');
let vega;
try {
  const {extend} = require('vega-util');
  const {transforms} = require('vega-dataflow');
  extend(transforms, require('vega-transforms'), require('vega-view-transforms'), require('vega-encode'));
  vega = {parse: require('vega-parser').parse, View: require('vega-view').View, Warn: require('vega-util').Warn};
} catch (e) {
  fail('cannot load Vega from ' + moduleDir + ' (install node-vega): ' + e.message);
}
// Text widths. Without a canvas (Debian has no node-canvas) Vega estimates every character at 0.8 em, about a third
// wider than the sans-serif rsvg-convert draws with: a long title then leaves a blank right margin and legends sit
// too far out. Measured instead from the font fontconfig picks for sans-serif (DejaVu Sans on Debian), regular and
// bold: each character's advance width read from the font file's cmap and hmtx tables. Vega's estimate stays where
// no font is found.
function fontAdvances(pattern) {
  let file;
  try {
    file = require('child_process').execFileSync('fc-match', ['-f', '%{file}', pattern], {encoding: 'utf8'});
  } catch (e) {
    return null;
  }
  try {
    return advancesOf(fs.readFileSync(file));
  } catch (e) {
    return null;  // unreadable, or not a font this reader knows: Vega's estimate
  }
}

// A TrueType or OpenType font's advance widths in em by code point (a collection: its first font).
function advancesOf(b) {
  const base = b.toString('latin1', 0, 4) === 'ttcf' ? b.readUInt32BE(12) : 0;
  const tables = {};
  for (let i = 0, n = b.readUInt16BE(base + 4); i < n; ++i) {
    const at = base + 12 + 16 * i;
    tables[b.toString('latin1', at, at + 4)] = b.readUInt32BE(at + 8);
  }
  if (!['head', 'hhea', 'hmtx', 'cmap'].every(tag => tag in tables)) return null;
  const unitsPerEm = b.readUInt16BE(tables.head + 18);
  const metrics = b.readUInt16BE(tables.hhea + 34);
  const advance = glyph => b.readUInt16BE(tables.hmtx + 4 * Math.min(glyph, metrics - 1)) / unitsPerEm;
  // The Unicode BMP subtable (platform 3 encoding 1, or platform 0), format 4: segments of code points.
  let sub = -1;
  for (let i = 0, n = b.readUInt16BE(tables.cmap + 2); i < n; ++i) {
    const at = tables.cmap + 4 + 8 * i;
    const platform = b.readUInt16BE(at), encoding = b.readUInt16BE(at + 2);
    const offset = tables.cmap + b.readUInt32BE(at + 4);
    if (((platform === 3 && encoding === 1) || platform === 0) && b.readUInt16BE(offset) === 4) sub = offset;
  }
  if (sub < 0) return null;
  const segments = b.readUInt16BE(sub + 6) / 2;
  const ends = sub + 14, starts = ends + 2 * segments + 2, deltas = starts + 2 * segments, ranges = deltas + 2 * segments;
  const glyph = code => {
    for (let s = 0; s < segments; ++s) {
      if (code > b.readUInt16BE(ends + 2 * s)) continue;
      const start = b.readUInt16BE(starts + 2 * s);
      if (code < start) return 0;
      const delta = b.readInt16BE(deltas + 2 * s), range = b.readUInt16BE(ranges + 2 * s);
      if (range === 0) return (code + delta) & 0xffff;
      const id = b.readUInt16BE(ranges + 2 * s + range + 2 * (code - start));
      return id === 0 ? 0 : (id + delta) & 0xffff;
    }
    return 0;
  };
  const cache = new Map();
  return code => {
    let w = cache.get(code);
    if (w === undefined) cache.set(code, (w = code > 0xffff ? 1 : advance(glyph(code))));
    return w;
  };
}

function measureText() {
  const metrics = require('vega-scenegraph').textMetrics;
  const regular = fontAdvances('sans-serif'), bold = fontAdvances('sans-serif:bold');
  if (!regular || !bold) return;
  metrics.width = (item, text) => {
    const size = item.fontSize != null ? +item.fontSize || 0 : 11;
    const line = text == null ? '' : String(text).trim();
    const weight = String(item.fontWeight || '');
    const advances = weight === 'bold' || +weight >= 600 ? bold : regular;
    let em = 0;
    try {
      for (const ch of line) em += advances(ch.codePointAt(0));
    } catch (e) {
      return metrics.estimateWidth(item, text);  // a table that points outside its file
    }
    return em * size;
  };
}
measureText();

let spec;
try {
  spec = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
} catch (e) {
  fail('cannot read the specification: ' + e.message);
}
let view;
try {
  view = new vega.View(vega.parse(spec), {renderer: 'none', logLevel: vega.Warn});
} catch (e) {
  fail('invalid specification: ' + e.message);
}
view.toSVG()
    .then(svg => fs.writeFileSync(process.argv[3], svg))
    .catch(e => fail(e.message));
