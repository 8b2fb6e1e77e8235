// Runs a JavaScript adapter module for skill-be: the module's default export is
// `async (prompt, { settings, timeoutMs, cwd }) => string`, as in the Node tool.
// Input (stdin): {"prompt", "settings", "timeoutMs", "cwd"}. Output (stdout): {"text"} or {"error"}.
// Exit 3: the module cannot be loaded or has no default export function (it cannot start at all).
import { pathToFileURL } from 'node:url';

const [modulePath, mode] = process.argv.slice(2);

async function load() {
  let mod;
  try {
    mod = await import(pathToFileURL(modulePath).href);
  } catch (error) {
    process.stderr.write(`fails to load (${error && error.message ? error.message : String(error)})`);
    process.exit(3);
  }
  if (typeof mod.default !== 'function') {
    process.stderr.write('has no default export that is a function');
    process.exit(3);
  }
  return mod.default;
}

const adapter = await load();
if (mode === '--check') process.exit(0);

let input = '';
for await (const chunk of process.stdin) input += chunk;
const { prompt, settings, timeoutMs, cwd } = JSON.parse(input);
try {
  const text = await adapter(prompt, { settings, timeoutMs, cwd });
  if (typeof text !== 'string') {
    process.stdout.write(JSON.stringify({ error: `the adapter returned ${typeof text}, not a string` }));
  } else {
    process.stdout.write(JSON.stringify({ text }));
  }
} catch (error) {
  process.stdout.write(JSON.stringify({ error: error && error.message ? error.message : String(error) }));
}
process.exit(0);
