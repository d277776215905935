// Entry of the render function: the image runs `handler.handler` from here (see cloud/image/Dockerfile).
// The handler itself is src/lambda/handler.ts, built into dist/.
module.exports = require('../dist/lambda/handler.js');
