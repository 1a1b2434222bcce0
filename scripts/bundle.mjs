// Bundles the compiled CLI (dist/cli/main.js, which also runs the server) into one file, dist/cli/cairn.mjs.
// Why: Node 20 has no module compile cache, and loading ~900 ES modules one by one (resolve, stat, read,
// compile) was a third of the start-up time of `cairn serve` (issue 15: start ≤ 1 s). One file loads in one
// read. The bundle keeps the module structure (no minification: stack traces stay readable) and loads
// what start-up does not need (PostgreSQL driver, Redis client, MCP server) lazily, as the code asks.
import { build } from 'esbuild';

await build({
  entryPoints: ['dist/cli/main.js'],
  outfile: 'dist/cli/cairn.mjs',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  logLevel: 'warning',
  // Packages that read files next to their own sources (native bindings, static assets) stay in
  // node_modules; pg-native is pg's optional native driver, never installed.
  external: ['better-sqlite3', 'pg-native', '@fastify/swagger-ui', '@fastify/static'],
  // CommonJS packages inside an ES module bundle still call require() for Node built-ins.
  banner: {
    js: "import { createRequire as __cairnRequire } from 'node:module';\nconst require = __cairnRequire(import.meta.url);",
  },
});
