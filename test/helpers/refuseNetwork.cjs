/**
 * Preloaded into a child process (NODE_OPTIONS=--require …) to refuse every outgoing connection: every socket's
 * connect fails with ECONNREFUSED (TCP, TLS, IPC alike, loopback included), and every DNS lookup with ENOTFOUND.
 * Each attempt is appended as a JSON line to the file in REFLECT_EVAL_NETWORK_LOG, so a test can check that a run
 * tried none (test/cli/localOnly.test.ts).
 */
'use strict';
const fs = require('node:fs');
const net = require('node:net');
const dns = require('node:dns');

const logFile = process.env.REFLECT_EVAL_NETWORK_LOG;
function record(kind, target) {
  if (logFile) fs.appendFileSync(logFile, JSON.stringify({ kind, target: String(target), pid: process.pid }) + '\n');
}

const refused = (target) => Object.assign(new Error(`connect ECONNREFUSED ${target} (outgoing connections are refused in this test)`), { code: 'ECONNREFUSED', errno: -111, syscall: 'connect' });

const original = net.Socket.prototype.connect;
net.Socket.prototype.connect = function connect(...args) {
  // Node passes its own calls as one normalized array [options, callback].
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  const options = typeof first === 'object' && first !== null ? first : { port: first, host: typeof args[1] === 'string' ? args[1] : undefined };
  if (typeof options.path === 'string') {
    // A local IPC socket (a Unix domain socket or a Windows pipe: tsx's loader talks to its own process this way) is
    // not the network; it is logged apart and let through.
    record('ipc', options.path);
    return original.apply(this, args);
  }
  const target = `${options.host ?? 'localhost'}:${options.port}`;
  record('connect', target);
  process.nextTick(() => this.destroy(refused(target)));
  return this;
};

const lookup = dns.lookup;
dns.lookup = function (hostname, options, callback) {
  const cb = typeof options === 'function' ? options : callback;
  record('dns', hostname);
  process.nextTick(() => cb(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname })));
};
dns.promises.lookup = async (hostname) => {
  record('dns', hostname);
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
};
void lookup;
