import { DomainError } from '../../domain/errors';

/** The DomainError a promise rejects with; fails the test when it resolves or rejects with anything else. */
export async function failureOf(p: Promise<unknown>): Promise<DomainError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    return err as DomainError;
  }
  throw new Error('expected the call to fail');
}
