// npm run typecheck: every TypeScript project of the repository, two at a time (the machines here
// have two cores), each printing its own errors; fails when any project does. generated/ first, so
// the API's types follow docs/openapi.json after a pull.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { generate } from './generate';

const ROOT = path.join(import.meta.dirname, '..');
const PROJECTS = ['worker', 'web', 'e2e', 'bench', 'cli', 'sdk/test'];
const AT_ONCE = 2;

function check(project: string): Promise<boolean> {
  return new Promise((resolve) => {
    const tsc = spawn(path.join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', project], { cwd: ROOT, stdio: 'inherit' });
    tsc.on('exit', (code) => resolve(code === 0));
  });
}

await generate();
const queue = [...PROJECTS];
const failed: string[] = [];
await Promise.all(
  Array.from({ length: AT_ONCE }, async () => {
    for (let project = queue.shift(); project; project = queue.shift()) {
      if (!(await check(project))) failed.push(project);
    }
  }),
);
if (failed.length) {
  console.error(`Type errors in: ${failed.join(', ')}`);
  process.exit(1);
}
console.log(`Typecheck passed: ${PROJECTS.join(', ')}`);
