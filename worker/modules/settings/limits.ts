// Limits in the settings that other modules' checks read (a product's device limit).
import { AppError } from '../../platform/errors';
import type { Settings } from './schemas';

/**
 * `maxActivationsPerKey` bounds every product's `maxActivations`. Product create
 * and edit call this with the current settings; a product saved before the bound was lowered keeps
 * its value until it is next edited.
 */
export function assertWithinActivationLimit(settings: Pick<Settings, 'maxActivationsPerKey'>, maxActivations: number): void {
  if (maxActivations > settings.maxActivationsPerKey) {
    throw new AppError('VALIDATION_ERROR', activationLimitMessage(settings.maxActivationsPerKey), { details: { field: 'maxActivations' } });
  }
}

export const activationLimitMessage = (limit: number) =>
  `Max activations must be at most ${limit} (the maximum activations per key in the settings)`;
