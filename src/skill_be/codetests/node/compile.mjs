// Transpiles TypeScript (or JavaScript) to ES modules with the classic compiler API, no type check.
//   node compile.mjs <typescript package folder>
// Requests and replies are JSON lines: {id, fileName, source} -> {id, code} | {id, error}.
// A syntax error is an error: the emitted code would only fail later, with a worse message.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const ts = createRequire(import.meta.url)(join(process.argv[2], 'lib', 'typescript.js'));
const options = {
  module: ts.ModuleKind.ESNext,
  target: ts.ScriptTarget.ES2022,
  sourceMap: false,
  inlineSourceMap: false,
  removeComments: false,
};

function transpile(fileName, source) {
  const out = ts.transpileModule(source, { compilerOptions: options, fileName, reportDiagnostics: true });
  const errors = (out.diagnostics ?? []).filter((d) => d.category === ts.DiagnosticCategory.Error);
  if (errors.length > 0) {
    const d = errors[0];
    const text = ts.flattenDiagnosticMessageText(d.messageText, ' ').replace(/\.$/, '');
    if (d.file && d.start !== undefined) {
      const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
      return { error: `line ${line + 1}, column ${character + 1}: ${text}` };
    }
    return { error: text };
  }
  return { code: out.outputText };
}

process.stdout.write(`${JSON.stringify({ ready: ts.version })}\n`);
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (!line.trim()) continue;
  const req = JSON.parse(line);
  let reply;
  try {
    reply = { id: req.id, ...transpile(req.fileName, req.source) };
  } catch (err) {
    reply = { id: req.id, error: String(err?.message ?? err) };
  }
  process.stdout.write(`${JSON.stringify(reply)}\n`);
}
