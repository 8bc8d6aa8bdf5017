// At most two routing mechanisms in the renderer (issue 41 item 1; docs/contributors/architecture.md,
// "The routing mechanisms"): a server frame by its route (its `t`, an effect frame's
// `effect:<kind>`) in transport.ts's one table, and a node by its type to its component. A third
// table over frame tags or effect kinds (a `switch` whose cases name two of them, or an object
// of handlers keyed by two of them) fails here. (A lookup `effects[frame.kind]` fails tsc: the
// runner's performers are methods named in camelCase, `openUrl`, not keyed by the kinds.)
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const SRC = fileURLToPath(new URL('../src', import.meta.url));
const ALLOWED = ['transport.ts::routes']; // the one table of server frames

function parse(path) {
  return ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
}

/** The frame tags and effect kinds of the generated frame table (frames.gen.ts, SERVER_FIELDS). */
function routeNames() {
  const names = new Set();
  const visit = (node) => {
    if (ts.isVariableDeclaration(node) && node.name.getText() === 'SERVER_FIELDS') {
      for (const frame of node.initializer.properties) {
        const tag = frame.name.getText();
        names.add(tag);
        if (tag !== 'effect') continue;
        const kind = frame.initializer.properties.find((p) => p.name.getText() === 'kind');
        for (const value of kind.initializer.elements) {
          names.add(value.text);
          names.add(`effect:${value.text}`);
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(parse(join(SRC, 'frames.gen.ts')));
  return names;
}

const NAMES = routeNames();

function sources(dir = SRC) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.tsx?$/.test(entry.name) && !/\.gen\.ts$|\.d\.ts$/.test(entry.name) ? [path] : [];
  });
}

const keyName = (prop) => (prop.name && (ts.isIdentifier(prop.name) || ts.isStringLiteral(prop.name)) ? prop.name.text : null);
const isFunction = (node) => node && (ts.isArrowFunction(node) || ts.isFunctionExpression(node));

/** Where `source` routes over frame tags or effect kinds: `file::name` of each table. */
export function routingTables(label, text) {
  const found = [];
  const file = ts.createSourceFile(label, text, ts.ScriptTarget.Latest, true);
  const owner = (node) => {
    const parent = node.parent;
    if (parent && (ts.isPropertyDeclaration(parent) || ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent))) {
      return parent.name.getText();
    }
    for (let up = node.parent; up; up = up.parent) if (up.name && ts.isFunctionLike(up)) return up.name.getText();
    return `line ${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  };
  const visit = (node) => {
    if (ts.isSwitchStatement(node)) {
      const named = node.caseBlock.clauses.filter(
        (c) => ts.isCaseClause(c) && ts.isStringLiteralLike(c.expression) && NAMES.has(c.expression.text),
      );
      if (named.length >= 2) found.push(`${label}::${owner(node)} (switch)`);
    }
    if (ts.isObjectLiteralExpression(node)) {
      const handlers = node.properties.filter(
        (p) => NAMES.has(keyName(p)) && (ts.isMethodDeclaration(p) || (ts.isPropertyAssignment(p) && isFunction(p.initializer))),
      );
      if (handlers.length >= 2) found.push(`${label}::${owner(node)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

test('the renderer routes server frames and effects in one table: transport.ts routes', () => {
  const found = sources().flatMap((path) => routingTables(relative(SRC, path), readFileSync(path, 'utf8')));
  assert.deepEqual(found, ALLOWED);
});

test('the routes table lists every effect kind the protocol has', () => {
  const text = readFileSync(join(SRC, 'transport.ts'), 'utf8');
  for (const name of NAMES) if (name.startsWith('effect:')) assert.ok(text.includes(`'${name}':`), name);
});

test('the check sees a third table: a switch over effect kinds, an object of performers', () => {
  const ladder = "function perform(kind: string) { switch (kind) { case 'eip1193': return 1; case 'clipboard': return 2; } }";
  assert.deepEqual(routingTables('bridge.ts', ladder), ['bridge.ts::perform (switch)']);
  const table = 'const PERFORMERS = { eip1193: (r: unknown) => r, open_url: (r: unknown) => r };';
  assert.deepEqual(routingTables('bridge.ts', table), ['bridge.ts::PERFORMERS']);
  // data keyed by frame tags is no table of handlers
  assert.deepEqual(routingTables('x.ts', "const REFUSED = { error: 'a', patch: 'b' };"), []);
});
