'use strict';
// The compiled addon: isPlain(bytes) → whether a Uint8Array is plain text (see plaintext.c).
module.exports = require('./build/Release/plaintext.node');
