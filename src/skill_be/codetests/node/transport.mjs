// The membrane's transport: frames (4-byte big-endian length + UTF-8 JSON) over two FIFOs, one each
// way, with no thread of its own, so the runner can run under Node's permission model without
// `--allow-worker` (a worker may be given its own, wider, permissions: that flag undoes the model).
//
// The incoming FIFO is open twice, as two open file descriptions made by the launcher: `asyncFd`,
// which libuv reads (non-blocking) while the event loop runs, and `syncFd`, which stays blocking and
// is read directly while a synchronous call waits for its reply. The two are never read at the same
// time (libuv reads only while the event loop runs, the blocking reads only while it cannot), and both
// feed one parser, so the frames keep their order whichever of them read the bytes.
import { Socket } from 'node:net';
import { readSync, writeSync } from 'node:fs';

export const MAX_FRAME = 16 * 1024 * 1024; // one value larger than this ends the channel
const QUEUE_MAX = 8; // frames parsed ahead of their handling: more pauses the socket (a flood fills the FIFO)
const CHUNK = 64 * 1024;

/** Splits a byte stream into frames; a frame over MAX_FRAME or the end of the stream is the last. */
export function createParser() {
  let buf = Buffer.alloc(0);
  const frames = [];
  let closed = null;
  return {
    frames,
    feed(chunk) {
      if (closed) return;
      buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
      while (buf.length >= 4) {
        const length = buf.readUInt32BE(0);
        if (length > MAX_FRAME) {
          closed = { tooBig: length };
          frames.push(closed);
          return;
        }
        if (buf.length < 4 + length) break;
        frames.push(buf.toString('utf8', 4, 4 + length));
        buf = buf.subarray(4 + length);
      }
    },
    end() {
      if (closed) return;
      closed = { eof: true };
      frames.push(closed);
    },
    closed: () => closed !== null,
  };
}

/** Encodes one frame. */
export function frame(text) {
  const body = Buffer.from(text, 'utf8');
  if (body.length > MAX_FRAME) throw new RangeError(`a value over ${MAX_FRAME} bytes cannot be passed`);
  const out = Buffer.allocUnsafe(4 + body.length);
  out.writeUInt32BE(body.length, 0);
  body.copy(out, 4);
  return out;
}

/**
 * onFrame(frame): each incoming frame, a string, or {eof} / {tooBig} as the last one.
 * keepAlive: the open socket keeps the process alive (the answer's side, which only serves).
 */
export function createTransport({ asyncFd, syncFd, writeFd, onFrame, keepAlive = false }) {
  const parser = createParser();
  const socket = new Socket({ fd: asyncFd, readable: true, writable: false });
  if (!keepAlive) socket.unref();
  let paused = false;

  // Handles the frames parsed so far, one at a time: a handler may itself wait (a nested call), and
  // then takes the next frames itself.
  function pump() {
    while (parser.frames.length > 0) onFrame(parser.frames.shift());
    if (paused && !parser.closed()) {
      paused = false;
      socket.resume();
    }
  }
  socket.on('data', (chunk) => {
    parser.feed(chunk);
    if (parser.frames.length > QUEUE_MAX && !paused) {
      paused = true;
      socket.pause();
    }
    pump();
  });
  socket.on('end', () => {
    parser.end();
    pump();
  });
  socket.on('error', () => {
    parser.end();
    pump();
  });

  const chunk = Buffer.allocUnsafe(CHUNK);
  // Blocks until one more frame is handled; false once the stream has ended.
  function step() {
    if (parser.frames.length > 0) {
      onFrame(parser.frames.shift());
      return true;
    }
    if (parser.closed()) return false;
    let n;
    try {
      n = readSync(syncFd, chunk, 0, CHUNK, null);
    } catch (err) {
      if (err?.code === 'EAGAIN' || err?.code === 'EINTR') return true;
      n = 0;
    }
    if (n === 0) parser.end();
    else parser.feed(Buffer.from(chunk.subarray(0, n)));
    return true;
  }

  function send(bytes) {
    let at = 0;
    while (at < bytes.length) {
      try {
        at += writeSync(writeFd, bytes, at, bytes.length - at);
      } catch (err) {
        if (err?.code === 'EAGAIN') continue;
        return false;
      }
    }
    return true;
  }

  // Frames a blocking read took beyond the one waited for are handled as if they had just come.
  let scheduled = false;
  function later() {
    if (scheduled || parser.frames.length === 0) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      pump();
    });
  }

  return { send, step, pump, later };
}
