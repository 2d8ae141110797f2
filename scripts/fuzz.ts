/**
 * `npm run fuzz -- [--minutes N] [--seed S] [--api NAME]...`: the fuzz suite of test/simulator/fuzz for longer than
 * CI gives it. Prints the seed (a random one unless given), requests per API and, on a failure, what failed and the
 * counterexample fast-check shrank it to; exits 1 then, 2 on a bad argument.
 */
import { parseArgs } from 'node:util';
import { formatReport, runFuzz } from '../test/simulator/fuzz/run.ts';
import { FUZZ_APIS } from '../test/simulator/fuzz/apis.ts';

function usage(message: string): never {
  console.error(`fuzz: ${message}; usage: npm run fuzz -- [--minutes N] [--seed S] [--api ${FUZZ_APIS.map((a) => a.name).join('|')}]...`);
  process.exit(2);
}

let values;
try {
  ({ values } = parseArgs({
    options: { minutes: { type: 'string', default: '5' }, seed: { type: 'string' }, api: { type: 'string', multiple: true } },
    strict: true,
  }));
} catch (err) {
  usage((err as Error).message);
}
const minutes = Number(values.minutes);
if (!(minutes > 0 && minutes <= 24 * 60)) usage('--minutes must be a number of minutes, more than 0 and at most 1440');
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
if (!Number.isSafeInteger(seed)) usage('--seed must be an integer');
const unknown = (values.api ?? []).find((a) => !FUZZ_APIS.some((f) => f.name === a));
if (unknown !== undefined) usage(`--api ${unknown} is not one of the APIs`);

// Every answer is checked against its route's response schema, as in the test suites (response-check.ts).
process.env.SIMCLOUD_VALIDATE_RESPONSES ??= '1';
console.log(`fuzz: seed ${seed}, ${minutes} min${values.api === undefined ? '' : `, ${values.api.join(', ')}`}`);
const report = await runFuzz({ seed, timeLimitMs: minutes * 60_000, ...(values.api === undefined ? {} : { apis: values.api }) });
console.log(formatReport(report));
process.exit(report.failure === undefined ? 0 : 1);
