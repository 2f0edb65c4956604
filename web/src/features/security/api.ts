// Server state of the security page: status, sessions and the log, and the calls that change them.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api';
import { sessionKeys } from '../../lib/session';
import { securityKeys } from './query-keys';
import type { StepUpProof } from '../../components/StepUp';

export function useSecurityInfo() {
  return useQuery({
    queryKey: securityKeys.info,
    queryFn: ({ signal }) => api.get('/api/users/security', undefined, signal),
  });
}

export function useSessions() {
  return useQuery({
    queryKey: securityKeys.sessions,
    queryFn: ({ signal }) => api.get('/api/users/sessions', undefined, signal),
    select: (data) => data.sessions,
  });
}

export function useSecurityLog() {
  return useQuery({
    queryKey: securityKeys.log,
    queryFn: ({ signal }) => api.get('/api/users/security-log', undefined, signal),
    select: (data) => data.logs,
  });
}

/** After anything on this page: the status, the log (a new entry) and the profile (2FA/Google flags). */
function useRefreshSecurity() {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: securityKeys.all }),
      queryClient.invalidateQueries({ queryKey: sessionKeys.profile }),
    ]);
}

export function useChangePassword() {
  const refresh = useRefreshSecurity();
  return useMutation({
    mutationFn: (body: { currentPassword: string; newPassword: string; keepApiTokens: boolean }) =>
      api.put('/api/users/change-password', body),
    onSuccess: refresh,
  });
}

export function useSetupTwoFactor() {
  return useMutation({ mutationFn: (proof: StepUpProof) => api.post('/api/users/setup-2fa', proof) });
}

export function useVerifyTwoFactor() {
  const refresh = useRefreshSecurity();
  return useMutation({ mutationFn: (code: string) => api.post('/api/users/verify-2fa', { code }), onSuccess: refresh });
}

export function useDisableTwoFactor() {
  const refresh = useRefreshSecurity();
  return useMutation({
    mutationFn: (proof: StepUpProof) => api.delete('/api/users/disable-2fa', proof),
    onSuccess: refresh,
  });
}

export function useGenerateRecoveryTokens() {
  const refresh = useRefreshSecurity();
  return useMutation({
    mutationFn: (proof: StepUpProof) => api.post('/api/users/recovery-tokens', proof),
    onSuccess: refresh,
  });
}

export function useTerminateSession() {
  const refresh = useRefreshSecurity();
  return useMutation({
    mutationFn: (id: string) => api.delete(`/api/users/sessions/${encodeURIComponent(id)}`),
    onSuccess: refresh,
  });
}

/** A plain navigation carries no bearer token: ask for Google's address (with step-up proof), then go there. */
export function useConnectGoogle() {
  return useMutation({
    mutationFn: (proof: StepUpProof) => api.post('/api/users/connect-google', proof),
    onSuccess: ({ url }) => window.location.assign(url),
  });
}

export function useDisconnectGoogle() {
  const refresh = useRefreshSecurity();
  return useMutation({
    mutationFn: (proof: StepUpProof) => api.delete('/api/users/disconnect-google', proof),
    onSuccess: refresh,
  });
}
