// The reading half of membrane.mjs, in a worker thread: blocking reads of one FIFO, each frame
// (4-byte big-endian length + UTF-8 JSON) handed to the main thread's port, then Atomics.notify, so
// a main thread blocked in Atomics.wait (a synchronous call) wakes for it. A frame over the limit,
// or the end of the stream, is the last message.
import { workerData } from 'node:worker_threads';
import { readSync } from 'node:fs';

const { fd, port, cell, max, ahead } = workerData;
// [0]: frames handed over; [1]: frames the main thread has taken. At most `ahead` frames wait in
// the port, so a side that floods the channel fills the FIFO and blocks, not this process's memory.
const counter = new Int32Array(cell);
const bump = () => {
  Atomics.add(counter, 0, 1);
  Atomics.notify(counter, 0);
  for (;;) {
    const taken = Atomics.load(counter, 1);
    if (Atomics.load(counter, 0) - taken < ahead) break;
    Atomics.wait(counter, 1, taken, 100);
  }
};
const head = Buffer.alloc(4);

function fill(buf) {
  let at = 0;
  while (at < buf.length) {
    let n;
    try {
      n = readSync(fd, buf, at, buf.length - at, null);
    } catch (err) {
      if (err?.code === 'EAGAIN' || err?.code === 'EINTR') continue;
      return false;
    }
    if (n === 0) return false;
    at += n;
  }
  return true;
}

for (;;) {
  if (!fill(head)) {
    port.postMessage({ eof: true });
    bump();
    break;
  }
  const length = head.readUInt32BE(0);
  if (length > max) {
    port.postMessage({ tooBig: length });
    bump();
    break;
  }
  const body = Buffer.allocUnsafe(length);
  if (!fill(body)) {
    port.postMessage({ eof: true });
    bump();
    break;
  }
  port.postMessage(body.toString('utf8'));
  bump();
}
