'use strict';
// The compiled addon: map(path) → ArrayBuffer over the file, diffRows, release(view).
module.exports = require('./build/Release/fbmap.node');
