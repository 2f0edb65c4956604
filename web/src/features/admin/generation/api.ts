// Generating license keys: a change to keys like any other, refreshed as License Key Management's are.
import { useMutation } from '@tanstack/react-query';
import type { GenerateKeysInput } from '../../../../../worker/modules/keys/schemas/admin-keys';
import type { RequestBody } from '../../../../../worker/platform/api-client';
import { api } from '../../../lib/api';
import { useAfterKeyChange } from '../license-keys/api';

export function useGenerateKeys() {
  const after = useAfterKeyChange();
  return useMutation({
    mutationFn: (body: GenerateKeysInput) => api.post('/api/keys/generate', body),
    onSuccess: after,
  });
}

/** One chunk of an import file, planned (dryRun) or written; its answer counts what happened. */
export function importChunk(body: RequestBody<'post', '/api/admin/import'>) {
  return api.post('/api/admin/import', body);
}
