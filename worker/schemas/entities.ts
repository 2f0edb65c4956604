// The shapes the API returns (SPEC section 3 and ARCHITECTURE.md), shared by the web app and the CLI.
export type Role = 'user' | 'reseller' | 'owner';

export type User = {
  _id: string;
  username: string;
  email: string;
  role: Role;
  /** USD, two decimals. */
  balance: number;
  credits: number;
  isActive: boolean;
  createdAt: string;
  lastLogin: string | null;
  twoFactorEnabled: boolean;
  googleConnected: boolean;
};

export type LoginResponse = { token: string; user: User } | { requires2FA: true; challenge: string };
export type RegisterResponse = { success: boolean; token: string; user: User; message: string };

export type DashboardStats = {
  totalKeys: number;
  availableKeys: number;
  usedKeys: number;
  expiredKeys: number;
  revokedKeys: number;
  totalProducts: number;
};

// Account security (SPEC sections 3 and 7).
export type SecurityInfo = {
  twoFactorEnabled: boolean;
  googleConnected: boolean;
  /** How many unused recovery tokens are left; the tokens themselves are shown only once. */
  recoveryTokens: number;
  googleEmail: string | null;
  /** False for an account made through Google that has not set a password yet. */
  hasPassword: boolean;
  googleAvailable: boolean;
};
export type SessionInfo = { id: string; device: string; browser: string; location: string | null; ipAddress: string | null; lastActive: string; createdAt: string; current: boolean };
export type SecurityLogEntry = { _id: string; event: string; ipAddress: string | null; timestamp: string };
export type TwoFactorSetupResponse = { qrCodeUrl: string; secret: string; otpauthUrl: string };
export type RecoveryTokensResponse = { tokens: string[] };
/** What the Google sign-in hands the app after its redirect (POST /api/auth/google/complete). */
export type GoogleCompletion = LoginResponse | { connected: true; message: string };
