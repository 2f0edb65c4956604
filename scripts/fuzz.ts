// npm run fuzz: the fuzz test (worker/test/fuzz.test.ts) with many runs per operation and a random
// seed, printed first so a failure can be replayed: FUZZ_SEED=<seed> FUZZ_RUNS=<runs> npm run fuzz.
import { spawnSync } from 'node:child_process';

const runs = process.env.FUZZ_RUNS || '100';
const seed = process.env.FUZZ_SEED || String(Math.floor(Math.random() * 2 ** 31));
console.log(`fuzz: ${runs} runs per operation, seed ${seed}`);
const result = spawnSync('npx', ['vitest', 'run', '--project', 'worker', 'worker/test/fuzz.test.ts'], {
  stdio: 'inherit',
  env: { ...process.env, FUZZ_RUNS: runs, FUZZ_SEED: seed },
  shell: process.platform === 'win32',
});
if (result.status !== 0) console.log(`fuzz failed: replay with FUZZ_SEED=${seed} FUZZ_RUNS=${runs} npm run fuzz`);
process.exit(result.status ?? 1);
