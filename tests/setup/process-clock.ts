/**
 * `TEST_CLOCK_START=2026-11-24T00:30:00Z npx jest …` runs each test file as if the machine's clock
 * had been set to that instant when the file started: `Date` (and so the domain clock, the
 * embedded database, the tests' own arithmetic) reads from there and advances in real time.
 * CI runs the time-bound suites this way just after midnight UTC and just before it, so a run that
 * starts in the first hour of a day is tested every time, not only when it happens.
 */
const start = process.env.TEST_CLOCK_START;
if (start) {
  const RealDate = Date;
  const startMs = RealDate.parse(start);
  if (Number.isNaN(startMs)) throw new Error(`TEST_CLOCK_START is not a time: ${start}`);
  const offset = startMs - RealDate.now();
  // Named Date: libraries (MikroORM among them) recognise dates by their constructor's name.
  const ShiftedDate = class Date extends RealDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(RealDate.now() + offset);
      else super(...(args as [string]));
    }
    static override now() {
      return RealDate.now() + offset;
    }
  };
  globalThis.Date = ShiftedDate as DateConstructor;
}
