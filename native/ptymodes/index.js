'use strict';
// The compiled addon: lineModes(fd) → { echo, icanon } of a PTY's termios.
module.exports = require('./build/Release/ptymodes.node');
