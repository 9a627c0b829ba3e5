// Validates recorded answers (crawl.py, fuzz_fixtures.py with
// PLINTH_RECORD_ANSWERS) with the zod schemas of a client that
// @hey-api/openapi-ts generated from the served document: what a client that
// validates its responses at run time would accept. Each 2xx answer is
// matched to its operation (method and path; a literal segment wins over a
// parameter) and parsed with `z<OperationId>Response`. A 2xx JSON answer of
// an operation without a response schema is a failure too: every 2xx body is
// declared.
//
// Usage: node validate.mjs DOCUMENT ZOD_MODULE ANSWERS_FILE
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [documentPath, zodModule, answersPath] = process.argv.slice(2);
const doc = JSON.parse(readFileSync(documentPath, 'utf8'));
const schemas = await import(pathToFileURL(zodModule).href);

// hey-api's names: `get_site_by_slug` → `zGetSiteBySlugResponse`.
const pascal = (id) =>
  id
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0].toUpperCase() + word.slice(1))
    .join('');
const escapeRegex = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const operations = [];
for (const [path, item] of Object.entries(doc.paths)) {
  for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
    const operation = item[method];
    if (!operation) continue;
    const segments = path.split('/');
    const pattern = segments.map((s) => (s.startsWith('{') ? '[^/]+' : escapeRegex(s))).join('/');
    operations.push({
      method: method.toUpperCase(),
      path,
      id: operation.operationId,
      regex: new RegExp(`^${pattern}$`),
      literals: segments.filter((s) => !s.startsWith('{')).length,
    });
  }
}

function operationOf(method, path) {
  const bare = path.split('?')[0];
  return operations
    .filter((o) => o.method === method && o.regex.test(bare))
    .sort((a, b) => b.literals - a.literals)[0];
}

const answers = readFileSync(answersPath, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
const failures = [];
const validated = new Set();
let checked = 0;
// Answers that are not 2xx are schemathesis's to judge (scripts/fuzz); listed, so
// an operation the session no longer reaches shows.
const notSuccess = [];
for (const answer of answers) {
  if (answer.status < 200 || answer.status > 299) {
    const code = answer.body && typeof answer.body === 'object' ? answer.body.code : undefined;
    notSuccess.push(`${answer.method} ${answer.path}: ${answer.status} ${code ?? ''}`);
    continue;
  }
  const operation = operationOf(answer.method, answer.path);
  if (!operation) {
    failures.push(`${answer.method} ${answer.path}: no operation of the document matches`);
    continue;
  }
  const name = `z${pascal(operation.id)}Response`;
  const schema = schemas[name];
  const label = `${operation.method} ${operation.path} (${answer.status})`;
  if (!schema) {
    if (answer.body !== null && answer.body !== undefined) {
      failures.push(`${label}: answered a body, but the document declares none (no ${name})`);
    }
    continue;
  }
  const parsed = schema.safeParse(answer.body);
  checked += 1;
  validated.add(`${operation.method} ${operation.path}`);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 5)
      .map((issue) => `    at ${JSON.stringify(issue.path)}: ${issue.message}`)
      .join('\n');
    failures.push(`${label}: ${name} refused the answer\n${issues}`);
  }
}

console.log(
  `client judge: ${checked} answers of ${validated.size} operations validated with the generated zod schemas ` +
    `(${answers.length} recorded; ${notSuccess.length} not 2xx, not validated); ${failures.length} failures`,
);
for (const line of notSuccess) console.log(`  not 2xx: ${line}`);
for (const failure of failures) console.log(`  FAIL ${failure}`);
process.exit(failures.length ? 1 : 0);
