import { Creations, type PreparedCreation } from '../../domain/compliance/creations';

/** A creation of `rows` rows, named by its title (the first row's). */
const creation = (title: string, rows = 3): PreparedCreation => ({
  em: {} as never,
  rows: Array.from({ length: rows }, (_, i) => ['requirements', { title: i ? `${title}/${i}` : title }]),
  staged: [],
  added: [],
  audited: true,
});
const titles = (group: readonly PreparedCreation[]) => group.map((c) => String(c.rows[0][1].title));

/** A commit that waits until released, recording each group it was given. */
function gatedCommit(fail: (group: readonly PreparedCreation[]) => boolean = () => false) {
  const groups: string[][] = [];
  const gates: (() => void)[] = [];
  const commit = (group: readonly PreparedCreation[]) => {
    groups.push(titles(group));
    return new Promise<void>((resolve, reject) => gates.push(() => (fail(group) ? reject(new Error(`failed: ${titles(group).join(',')}`)) : resolve())));
  };
  const releaseAll = async () => {
    while (gates.length) {
      gates.shift()!();
      await new Promise((r) => setImmediate(r));
    }
  };
  return { commit, groups, releaseAll };
}

test('a creation alone commits at once, in a group of its own', async () => {
  const { commit, groups, releaseAll } = gatedCommit();
  const creations = new Creations(commit);
  const done = creations.submit(creation('a'));
  expect(groups).toEqual([['a']]);
  await releaseAll();
  await expect(done).resolves.toBeUndefined();
});

test('creations that arrive while a commit is under way commit together in the next one, in arrival order', async () => {
  const { commit, groups, releaseAll } = gatedCommit();
  const creations = new Creations(commit);
  const all = ['a', 'b', 'c', 'd'].map((t) => creations.submit(creation(t)));
  expect(groups).toEqual([['a']]);
  await releaseAll();
  await Promise.all(all);
  expect(groups).toEqual([['a'], ['b', 'c', 'd']]);
});

test('a group that fails is retried one creation at a time: only the failing creation fails', async () => {
  const { commit, groups, releaseAll } = gatedCommit((group) => titles(group).includes('bad'));
  const creations = new Creations(commit);
  const first = creations.submit(creation('a'));
  const rest = ['b', 'bad', 'c'].map((t) => creations.submit(creation(t)));
  const settled = Promise.allSettled([first, ...rest]);
  await releaseAll();
  const outcomes = await settled;
  expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
  expect((outcomes[2] as PromiseRejectedResult).reason.message).toBe('failed: bad');
  expect(groups).toEqual([['a'], ['b', 'bad', 'c'], ['b'], ['bad'], ['c']]);
});

test('a group holds at most 1,200 rows; a larger creation goes alone', async () => {
  const { commit, groups, releaseAll } = gatedCommit();
  const creations = new Creations(commit);
  const all = [creation('first'), creation('big', 1000), creation('next', 300), creation('small', 3), creation('huge', 2000)].map((c) => creations.submit(c));
  await releaseAll();
  await Promise.all(all);
  expect(groups).toEqual([['first'], ['big'], ['next', 'small'], ['huge']]);
});

test('after the queue empties, the next creation again commits at once', async () => {
  const { commit, groups, releaseAll } = gatedCommit();
  const creations = new Creations(commit);
  const one = creations.submit(creation('a'));
  await releaseAll();
  await one;
  const two = creations.submit(creation('b'));
  expect(groups).toEqual([['a'], ['b']]);
  await releaseAll();
  await two;
});
