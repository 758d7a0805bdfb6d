// Preloaded (NODE_OPTIONS=--require) into the MCP servers the real-client suite starts over
// HTTP: a server told only a port listens on 127.0.0.1, never on every interface (the suite's
// servers stay on loopback). The server itself is unchanged.
const net = require("net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const port = args[0];
  if (typeof port === "number" || (typeof port === "string" && /^\d+$/.test(port))) {
    const callbacks = args.slice(1).filter((a) => typeof a === "function");
    return listen.call(this, Number(port), "127.0.0.1", ...callbacks);
  }
  return listen.apply(this, args);
};
