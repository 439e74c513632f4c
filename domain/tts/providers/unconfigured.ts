import { DomainError } from '../../errors';
import type { ProviderId } from '../catalogue';
import type { SpeechProvider } from './provider';

/** Stands in for a vendor whose credentials are not set: every call is PROVIDER_NOT_CONFIGURED. */
export class UnconfiguredProvider implements SpeechProvider {
  constructor(
    readonly id: ProviderId,
    private readonly variable: string,
  ) {}

  isConfigured() {
    return false;
  }

  async synthesize(): Promise<Buffer> {
    throw new DomainError('PROVIDER_NOT_CONFIGURED', `${this.id} is not configured: set ${this.variable}`, {
      provider: this.id,
      details: { variable: this.variable },
    });
  }
}
