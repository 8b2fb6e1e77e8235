// The answer's own process. The launcher (launch.mjs) starts it under the answers' uid where it can,
// with the membrane's FIFOs as fds 3 and 5 (in, twice: see transport.mjs) and 4 (out), its output thrown away, and its
// environment cut. It writes the answer into its run folder, loads it, and hands the exported fields
// to the runner through the membrane; from then on it only serves the runner's requests. It decides
// nothing: the tests and their verdicts stay in the runner's process, out of this one's reach.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createEndpoint } from './membrane.mjs';

let started = false;

const ep = createEndpoint({
  side: 'answer',
  asyncFd: 3,
  writeFd: 4,
  syncFd: 5,
  keepAlive: true,
  onEvent: (ev) => {
    if (ev.e === 'init' && !started) {
      started = true;
      load(String(ev.dir), String(ev.answer));
    } else if (ev.e === 'gone') {
      process.exit(0); // the runner is done, or gone: nothing left to serve
    }
  },
});

const report = (err) => {
  try {
    ep.event({ e: 'uncaught', error: ep.enc(err) });
  } catch {}
};
process.on('uncaughtException', report);
process.on('unhandledRejection', report);

async function load(dir, answer) {
  const file = join(dir, 'answer.mjs');
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(file, answer);
  } catch (err) {
    ep.event({ e: 'fatal', message: `the answer could not be written to ${dir}: ${err?.message ?? err}` });
    return;
  }
  process.chdir(dir);
  process.env.HOME = dir; // it may have started before its folder was known
  process.env.TMPDIR = dir;
  let ns;
  try {
    ns = await import(pathToFileURL(file).href);
  } catch (err) {
    ep.event({ e: 'load-error', error: ep.enc(err) });
    return;
  }
  if (!('result' in ns)) {
    ep.event({ e: 'load-error', noResult: true });
    return;
  }
  const fields = [];
  try {
    for (const key of Object.keys(ns)) fields.push([key, ep.enc(ns[key])]);
  } catch (err) {
    ep.event({ e: 'load-error', error: ep.enc(err) });
    return;
  }
  ep.event({ e: 'loaded', fields });
}
