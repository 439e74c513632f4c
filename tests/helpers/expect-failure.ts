import { DomainError } from '../../domain/errors';

/**
 * The error a promise rejects with, of the given class (DomainError unless another is named); fails
 * the test when it resolves or rejects with anything else.
 */
export async function failureOf<E = DomainError>(p: Promise<unknown>, type: abstract new (...args: any[]) => E = DomainError as any): Promise<E> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(type);
    return err as E;
  }
  throw new Error('expected the call to fail');
}
