'use strict';
// The compiled addon: map(path) → ArrayBuffer over the file.
module.exports = require('./build/Release/fbmap.node');
