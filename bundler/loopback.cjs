// Preloaded into the bundler (`node -r ./loopback.cjs .../alto.js ...`): alto has no host flag and
// listens on every interface; this makes every server the process opens listen on 127.0.0.1 only.
"use strict";
const net = require("node:net");

const LOOPBACK = "127.0.0.1";
const listen = net.Server.prototype.listen;

net.Server.prototype.listen = function listenOnLoopback(...args) {
  const first = args[0];
  if (first !== null && typeof first === "object" && !(first instanceof net.Server) && !first._handle
      && first.path === undefined && first.fd === undefined) {
    args[0] = { ...first, host: LOOPBACK };
  } else if (typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first))) {
    if (typeof args[1] === "string") args[1] = LOOPBACK;
    else args.splice(1, 0, LOOPBACK);
  }
  return listen.apply(this, args);
};
