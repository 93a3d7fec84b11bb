// The part of Vega that ridge's HTML figures use, joined into one browser script by esbuild (see
// CMakeLists.txt). The modules are Debian's node-vega packages; the transforms are registered the way
// vega's own index.js does it, since that file is an ES module Debian ships unbuilt.
const {extend} = require('vega-util');
const {transforms} = require('vega-dataflow');
extend(transforms, require('vega-transforms'), require('vega-view-transforms'), require('vega-encode'));
module.exports = {
  parse: require('vega-parser').parse,
  View: require('vega-view').View,
  version: require('vega-view/package.json').version,
};
