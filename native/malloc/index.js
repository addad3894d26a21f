'use strict';
// The compiled addon: pinMmapThreshold(bytes) → whether glibc took it; arenas() → { heldBytes, freeBytes, mappedBytes }.
module.exports = require('./build/Release/malloc.node');
