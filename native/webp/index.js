'use strict';
// The compiled addon: encode(pixels, strideBytes, x, y, w, h, quality, method) → Promise<Buffer>.
module.exports = require('./build/Release/webp.node');
