'use strict';
// skill-be's checks helper: one JSON request on stdin, one JSON answer on stdout.
// It uses TypeScript's classic compiler API (lib/typescript.js, versions 5 and 6) for three jobs,
// all in this one process so the lib files are parsed once:
//   typecheck: the ts blocks of every skill, as virtual files of one Program
//   coverage:  the exports of an entry file and the public members of its exported classes
//   parse:     a syntax check of files on disk (the code tests)

const fs = require('fs');
const path = require('path');

const request = JSON.parse(fs.readFileSync(0, 'utf8'));
const ts = require(request.typescript);

// Unknown names (an example leaves out what it does not show), and values of type unknown
// (a `catch (error)` variable) are tolerated; everything else fails.
const TOLERATED = new Set([2304, 2552, 2584, 18046]);
// "The left-hand side / right-hand side of an arithmetic operation must be ...": tolerated only for
// `a(…) / b(…)`, the notation for "either form".
const ARITHMETIC = new Set([2362, 2363]);
const LIBRARY_ALIAS = '__skill_be_library__';

function firstLine(messageText) {
  return ts.flattenDiagnosticMessageText(messageText, '\n').split('\n')[0];
}

function compilerOptions(root, library) {
  const options = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2023.d.ts'], // no DOM: a global such as Option or fetch cannot shadow the library
    strict: true,
    noImplicitAny: false,
    skipLibCheck: true,
    noEmit: true,
    allowImportingTsExtensions: true,
    esModuleInterop: true,
    resolveJsonModule: true,
    types: hasNodeTypes(root) ? ['node'] : [],
  };
  if (library && library.kind === 'path') {
    options.paths = { [LIBRARY_ALIAS]: [library.entry] };
    if (library.packageName) options.paths[library.packageName] = [library.entry];
  }
  return options;
}

function hasNodeTypes(root) {
  for (let dir = root; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'node_modules', '@types', 'node', 'package.json'))) return true;
    if (path.dirname(dir) === dir) return false;
  }
}

// A compiler host that serves virtual files from memory and keeps every file it parsed from disk,
// so the second Program reuses the lib files the first one parsed.
function makeHost(options, virtual) {
  const base = ts.createCompilerHost(options);
  const cache = new Map();
  const host = Object.create(base);
  host.fileExists = (f) => virtual.has(f) || base.fileExists(f);
  host.readFile = (f) => (virtual.has(f) ? virtual.get(f) : base.readFile(f));
  host.getSourceFile = (fileName, languageVersion, onError) => {
    if (virtual.has(fileName)) {
      return ts.createSourceFile(fileName, virtual.get(fileName), languageVersion, true, ts.ScriptKind.TS);
    }
    let sf = cache.get(fileName);
    if (!sf) {
      sf = base.getSourceFile(fileName, languageVersion, onError);
      if (sf) cache.set(fileName, sf);
    }
    return sf;
  };
  return host;
}

function parseAlone(fileName, text, kind) {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind || ts.ScriptKind.TS);
  const diags = sf.parseDiagnostics || [];
  return { sf, diags };
}

function bindingNames(name, out) {
  if (ts.isIdentifier(name)) out.add(name.text);
  else for (const el of name.elements) if (!ts.isOmittedExpression(el)) bindingNames(el.name, out);
}

// The imports of a parsed block (one entry per local name) and every name it declares at the top.
function analyse(sf) {
  const imports = [];
  const declared = new Set();
  for (const st of sf.statements) {
    if (ts.isImportDeclaration(st)) {
      const clause = st.importClause;
      if (!clause || !ts.isStringLiteral(st.moduleSpecifier)) continue;
      const from = JSON.stringify(st.moduleSpecifier.text);
      const type = clause.isTypeOnly ? 'type ' : '';
      if (clause.name) imports.push({ name: clause.name.text, text: `import ${type}${clause.name.text} from ${from};` });
      const nb = clause.namedBindings;
      if (nb && ts.isNamespaceImport(nb)) {
        imports.push({ name: nb.name.text, text: `import ${type}* as ${nb.name.text} from ${from};` });
      } else if (nb && ts.isNamedImports(nb)) {
        for (const el of nb.elements) {
          const local = el.name.text;
          const imported = el.propertyName ? el.propertyName.text : local;
          const t = clause.isTypeOnly || el.isTypeOnly ? 'type ' : '';
          const shownName = /^[$A-Za-z_][$\w]*$/.test(imported) ? imported : JSON.stringify(imported);
          const spec = imported === local ? local : `${shownName} as ${local}`;
          imports.push({ name: local, text: `import ${t}{ ${spec} } from ${from};` });
        }
      }
    } else if (ts.isImportEqualsDeclaration(st)) {
      declared.add(st.name.text);
    } else if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) bindingNames(d.name, declared);
    } else if (
      (ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st) || ts.isInterfaceDeclaration(st) ||
        ts.isTypeAliasDeclaration(st) || ts.isEnumDeclaration(st) || ts.isModuleDeclaration(st)) &&
      st.name && ts.isIdentifier(st.name)
    ) {
      declared.add(st.name.text);
    }
  }
  for (const i of imports) declared.add(i.name);
  return { imports, declared };
}

function nodeAt(sf, pos) {
  let node = sf;
  for (;;) {
    const next = node.getChildren(sf).find((c) => c.getStart(sf) <= pos && pos < c.getEnd());
    if (!next) return node;
    node = next;
  }
}

function skipParens(e) {
  while (ts.isParenthesizedExpression(e)) e = e.expression;
  return e;
}

function tolerated(d) {
  if (TOLERATED.has(d.code)) return true;
  if (!ARITHMETIC.has(d.code) || d.start === undefined || !d.file) return false;
  for (let n = nodeAt(d.file, d.start); n; n = n.parent) {
    if (ts.isBinaryExpression(n)) {
      return (
        n.operatorToken.kind === ts.SyntaxKind.SlashToken &&
        ts.isCallExpression(skipParens(n.left)) &&
        ts.isCallExpression(skipParens(n.right))
      );
    }
  }
  return false;
}

function moduleExports(program, fileName) {
  const sf = program.getSourceFile(fileName);
  if (!sf) return null;
  const checker = program.getTypeChecker();
  const sym = checker.getSymbolAtLocation(sf);
  if (!sym) return [];
  return checker.getExportsOfModule(sym).filter((s) => s.name !== 'default' && s.name !== '__esModule');
}

// The names a module exports, read from the syntax alone (following `export * from`), so no type
// checker has to be built before the blocks are written.
function syntacticExports(fileName, options, host, seen = new Set()) {
  if (seen.has(fileName)) return [];
  seen.add(fileName);
  const text = host.readFile(fileName);
  if (text === undefined) return null;
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false);
  const names = [];
  const exported = (st) => (ts.getCombinedModifierFlags(st) & ts.ModifierFlags.Export) !== 0;
  for (const st of sf.statements) {
    if (ts.isExportDeclaration(st)) {
      if (st.exportClause && ts.isNamedExports(st.exportClause)) {
        for (const el of st.exportClause.elements) names.push(el.name.text);
      } else if (st.exportClause && ts.isNamespaceExport(st.exportClause)) {
        names.push(st.exportClause.name.text);
      } else if (st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier)) {
        const r = ts.resolveModuleName(st.moduleSpecifier.text, fileName, options, host);
        if (r.resolvedModule) names.push(...(syntacticExports(r.resolvedModule.resolvedFileName, options, host, seen) || []));
      }
    } else if (ts.isVariableStatement(st) && exported(st)) {
      const found = new Set();
      for (const d of st.declarationList.declarations) bindingNames(d.name, found);
      names.push(...found);
    } else if (
      (ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st) || ts.isInterfaceDeclaration(st) ||
        ts.isTypeAliasDeclaration(st) || ts.isEnumDeclaration(st) || ts.isModuleDeclaration(st)) &&
      exported(st) && st.name && ts.isIdentifier(st.name) &&
      !(ts.getCombinedModifierFlags(st) & ts.ModifierFlags.Default)
    ) {
      names.push(st.name.text);
    }
  }
  return [...new Set(names)].filter((n) => n !== 'default');
}

function resolveLibrary(library, root, options, host) {
  if (!library) return null;
  if (library.kind === 'path') return library.entry;
  const probe = path.join(root, '__skill_be_probe__.ts');
  const r = ts.resolveModuleName(library.name, probe, options, host);
  return r.resolvedModule ? r.resolvedModule.resolvedFileName : null;
}

function typecheck(job) {
  const root = job.root;
  const options = compilerOptions(root, job.library);
  const virtual = new Map();
  const host = makeHost(options, virtual);
  const answer = { problems: [], unparsed: [] };
  const entry = resolveLibrary(job.library, root, options, host);
  if (job.library && !entry) {
    answer.error = `cannot resolve the library "${job.library.name}" from ${root}`;
    return answer;
  }
  let old;
  let exportNames = [];
  let librarySpecifier = null;
  if (entry) {
    const names = syntacticExports(entry, options, host);
    if (names === null) {
      answer.error = `cannot read the library entry ${entry}`;
      return answer;
    }
    exportNames = names;
    librarySpecifier = job.library.kind === 'path' ? LIBRARY_ALIAS : job.library.name;
  }
  // Skills whose prelude is a script get a Program of their own: its globals must not reach the
  // other skills. Every other skill shares one Program.
  const groups = new Map();
  const blockFiles = new Map(); // virtual file name -> { skill, line, header }
  const preludeFiles = new Map(); // prelude file name -> skill
  for (const skill of job.skills) {
    const carried = new Map();
    let group = 'shared';
    const roots = [];
    if (skill.prelude) {
      const text = fs.readFileSync(skill.prelude, 'utf8');
      const { sf } = parseAlone(skill.prelude, text);
      preludeFiles.set(path.resolve(skill.prelude), skill.name);
      roots.push(path.resolve(skill.prelude));
      if (ts.isExternalModule(sf)) {
        for (const imp of analyse(sf).imports) carried.set(imp.name, imp.text);
        const spec = JSON.stringify(path.resolve(skill.prelude));
        const p = ts.createProgram([path.resolve(skill.prelude)], options, host, old);
        old = p;
        const names = (moduleExports(p, path.resolve(skill.prelude)) || []).map((s) => s.name);
        for (const name of names) carried.set(name, `import { ${name} } from ${spec};`);
      } else {
        group = `prelude:${skill.name}`;
      }
    }
    skill.blocks.forEach((block, index) => {
      const fileName = path.join(skill.dir, `SKILL.md.block-${index + 1}.ts`);
      const { sf, diags } = parseAlone(fileName, block.code);
      if (diags.length) {
        const d = diags[0];
        answer.unparsed.push({
          skill: skill.name,
          line: block.line + sf.getLineAndCharacterOfPosition(d.start).line,
          message: firstLine(d.messageText),
        });
        return;
      }
      const { imports, declared } = analyse(sf);
      const header = [];
      const used = new Set(declared);
      for (const [name, text] of carried) {
        if (!used.has(name)) {
          header.push(text);
          used.add(name);
        }
      }
      const fromLibrary = exportNames.filter((name) => !used.has(name));
      if (fromLibrary.length) header.push(`import { ${fromLibrary.join(', ')} } from ${JSON.stringify(librarySpecifier)};`);
      // Imports carry over to later blocks; a later import of the same name replaces an earlier one.
      for (const imp of imports) carried.set(imp.name, imp.text);
      const text = (header.length ? header.join('\n') + '\n' : '') + block.code + '\nexport {};\n';
      virtual.set(fileName, text);
      blockFiles.set(fileName, { skill: skill.name, line: block.line, header: header.length });
      roots.push(fileName);
    });
    if (!groups.has(group)) groups.set(group, []);
    groups.get(group).push(...roots);
  }
  for (const roots of groups.values()) {
    if (!roots.length) continue;
    const program = ts.createProgram(entry ? [entry, ...roots] : roots, options, host, old);
    old = program;
    for (const d of program.getOptionsDiagnostics()) {
      answer.error = `TypeScript refused its options: ${firstLine(d.messageText)}`;
      return answer;
    }
    for (const fileName of roots) {
      const sf = program.getSourceFile(fileName);
      if (!sf) continue;
      const diags = [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)];
      for (const d of diags) {
        if (d.category !== ts.DiagnosticCategory.Error || tolerated(d)) continue;
        const at = d.start === undefined ? 0 : sf.getLineAndCharacterOfPosition(d.start).line;
        const message = `error TS${d.code}: ${firstLine(d.messageText)}`;
        const block = blockFiles.get(fileName);
        if (block) {
          if (at < block.header) continue; // a carried import: reported at the block it came from
          answer.problems.push({ skill: block.skill, file: 'SKILL.md', line: block.line + at - block.header, message });
        } else {
          answer.problems.push({ skill: preludeFiles.get(fileName), file: fileName, line: at + 1, message });
        }
      }
    }
  }
  return answer;
}

function memberName(member, sf) {
  if (!member.name) return null;
  if (ts.isPrivateIdentifier(member.name)) return null;
  if (ts.isIdentifier(member.name) || ts.isStringLiteral(member.name) || ts.isNumericLiteral(member.name)) {
    return member.name.text;
  }
  return member.name.getText(sf);
}

function isPublic(node) {
  const flags = ts.getCombinedModifierFlags(node);
  return !(flags & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected));
}

function coverage(job) {
  const options = compilerOptions(job.root, null);
  const host = makeHost(options, new Map());
  const program = ts.createProgram([job.entry], options, host);
  const exps = moduleExports(program, job.entry);
  if (exps === null) return { error: `cannot read ${job.entry}` };
  const checker = program.getTypeChecker();
  const names = [];
  const seen = new Set();
  const add = (n) => {
    if (!seen.has(n)) {
      seen.add(n);
      names.push(n);
    }
  };
  for (const exp of exps) {
    add(exp.name);
    const sym = exp.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exp) : exp;
    for (const decl of sym.declarations || []) {
      if (!ts.isClassDeclaration(decl)) continue;
      const sf = decl.getSourceFile();
      for (const member of decl.members) {
        if (ts.isConstructorDeclaration(member)) {
          for (const p of member.parameters) {
            if (ts.isParameterPropertyDeclaration(p, member) && isPublic(p) && ts.isIdentifier(p.name)) {
              add(`${exp.name}.${p.name.text}`);
            }
          }
          continue;
        }
        if (ts.isIndexSignatureDeclaration(member) || ts.isClassStaticBlockDeclaration(member)) continue;
        if (!isPublic(member)) continue;
        const name = memberName(member, sf);
        if (name) add(`${exp.name}.${name}`);
      }
    }
  }
  return { names };
}

function parse(job) {
  const problems = [];
  for (const file of job.files) {
    const ext = path.extname(file).toLowerCase();
    const kind = ext === '.tsx' ? ts.ScriptKind.TSX : ext === '.js' || ext === '.mjs' || ext === '.cjs' ? ts.ScriptKind.JS : ts.ScriptKind.TS;
    const { sf, diags } = parseAlone(file, fs.readFileSync(file, 'utf8'), kind);
    for (const d of diags) {
      problems.push({ file, line: sf.getLineAndCharacterOfPosition(d.start).line + 1, message: firstLine(d.messageText) });
    }
  }
  return { problems };
}

const answer = { version: ts.version };
if (request.typecheck) answer.typecheck = typecheck(request.typecheck);
if (request.coverage) answer.coverage = coverage(request.coverage);
if (request.parse) answer.parse = parse(request.parse);
process.stdout.write(JSON.stringify(answer));
