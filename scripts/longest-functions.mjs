// Lists the longest functions (declarations, expressions, arrows, methods) under the given folders, by lines.
// Usage: node scripts/longest-functions.mjs [--most N] [folder ...]   (default: src, top 10)
// Issue 14's rule of thumb: no function in src/ over ~150 lines. Nested functions are counted on their own
// and inside their parent, so a factory of closures shows its whole length.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const args = process.argv.slice(2);
let most = 10;
const folders = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--most') most = Number(args[++i]);
  else folders.push(args[i]);
}
if (folders.length === 0) folders.push('src');

function* sourceFiles(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sourceFiles(path);
    else if (/\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name)) yield path;
  }
}

function nameOf(node, file) {
  if (node.name && ts.isIdentifier(node.name)) return node.name.text;
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText(file);
  return '(anonymous)';
}

const rows = [];
for (const folder of folders) {
  for (const path of sourceFiles(folder)) {
    const text = readFileSync(path, 'utf8');
    const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
    const visit = (node) => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const start = file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
        const end = file.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
        rows.push({ lines: end - start + 1, where: `${path}:${start}`, name: nameOf(node, file) });
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
}
rows.sort((a, b) => b.lines - a.lines);
for (const row of rows.slice(0, most)) console.log(`${String(row.lines).padStart(5)}  ${row.name}  ${row.where}`);
