/**
 * `Pipeline.tryAdmit` (the read lane's admission): the parts' admission in order, counting what
 * `admit` counts, but a refusal anywhere leaves nothing counted, and an admitted operation's counts
 * can be taken back. `Pipeline.admit` (Apollo's, graphql-ws's) is unchanged.
 */
import { buildSchema, parse } from 'graphql';
import { createPipeline, type Operation, type Part } from '../../gateway/graphql/pipeline';

const schema = buildSchema('type Query { a: Int }');
const op = { document: parse('{ a }'), documentKey: 'k', operationName: null, variables: {}, context: {} } as unknown as Operation;

/** A part that counts like the budgets: `limit` units at most; a log of what ran. */
function counter(name: string, log: string[], state: { count: number; limit: number }): Part {
  return {
    name,
    async admit() {
      state.count++;
      log.push(`${name}.admit`);
      if (state.count > state.limit) throw new Error('over');
    },
    async tryAdmit() {
      log.push(`${name}.tryAdmit`);
      if (state.count + 1 > state.limit) return false;
      state.count++;
      return true;
    },
    async takeBack() {
      log.push(`${name}.takeBack`);
      state.count--;
    },
  };
}
const check = (name: string, log: string[], refuse = false): Part => ({
  name,
  admit() {
    log.push(`${name}.admit`);
    if (refuse) throw new Error('refused');
  },
});

test('admitted: every part in order, the counts kept until taken back (in reverse order)', async () => {
  const log: string[] = [];
  const a = { count: 0, limit: 5 };
  const b = { count: 0, limit: 5 };
  const parts = [check('inputs', log), counter('a', log, a), counter('b', log, b), check('cost', log), { name: 'no-admission' }];
  const takeBack = await createPipeline(schema, parts).tryAdmit(op);
  expect(takeBack).toBeDefined();
  expect(log).toEqual(['inputs.admit', 'a.tryAdmit', 'b.tryAdmit', 'cost.admit']);
  expect([a.count, b.count]).toEqual([1, 1]);
  log.length = 0;
  await takeBack!();
  expect(log).toEqual(['b.takeBack', 'a.takeBack']);
  expect([a.count, b.count]).toEqual([0, 0]);
});

test('a check refusing after the counts: every count taken back, undefined', async () => {
  const log: string[] = [];
  const a = { count: 0, limit: 5 };
  const takeBack = await createPipeline(schema, [check('inputs', log), counter('a', log, a), check('cost', log, true)]).tryAdmit(op);
  expect(takeBack).toBeUndefined();
  expect(log).toEqual(['inputs.admit', 'a.tryAdmit', 'cost.admit', 'a.takeBack']);
  expect(a.count).toBe(0);
});

test('a counter refusing: the earlier counts taken back, nothing after it runs', async () => {
  const log: string[] = [];
  const a = { count: 0, limit: 5 };
  const b = { count: 3, limit: 3 };
  const takeBack = await createPipeline(schema, [counter('a', log, a), counter('b', log, b), check('cost', log)]).tryAdmit(op);
  expect(takeBack).toBeUndefined();
  expect(log).toEqual(['a.tryAdmit', 'b.tryAdmit', 'a.takeBack']);
  expect([a.count, b.count]).toEqual([0, 3]);
});

test('a check refusing first: nothing counted, nothing taken back', async () => {
  const log: string[] = [];
  const a = { count: 0, limit: 5 };
  expect(await createPipeline(schema, [check('inputs', log, true), counter('a', log, a)]).tryAdmit(op)).toBeUndefined();
  expect(log).toEqual(['inputs.admit']);
  expect(a.count).toBe(0);
});

test('admit (Apollo’s) still throws the refusal and keeps what it counted', async () => {
  const log: string[] = [];
  const a = { count: 1, limit: 1 };
  await expect(createPipeline(schema, [counter('a', log, a), check('cost', log)]).admit(op)).rejects.toThrow('over');
  expect(log).toEqual(['a.admit']);
  expect(a.count).toBe(2);
});
