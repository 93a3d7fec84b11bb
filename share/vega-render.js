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
